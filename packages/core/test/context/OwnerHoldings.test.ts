import { describe, expect, it } from 'vitest';
import { continueInFrame, currentFrame, OwnerFrame, OwnerHoldings, runInFrame } from '../../src/context/ownerContext.js';

interface Held {
  frame: OwnerFrame;
  usable: boolean;
}

describe('OwnerHoldings', () => {
  it('counts holds on the frame and says when the first is added and the last removed', () => {
    const holdings = new OwnerHoldings<Held>();
    const a: Held = { frame: new OwnerFrame(undefined), usable: true };
    const b: Held = { frame: new OwnerFrame(undefined), usable: true };
    expect(holdings.add(a)).toBe(true);
    expect(holdings.add(b)).toBe(false);
    expect(a.frame.holds).toBe(1);
    expect(holdings.size).toBe(2);
    expect(holdings.delete(a)).toBe(false);
    expect(a.frame.holds).toBe(0);
    expect(holdings.delete(a)).toBe(false); // not held: nothing counted down twice
    expect(a.frame.holds).toBe(0);
    expect(holdings.delete(b)).toBe(true);
    expect(holdings.size).toBe(0);
  });

  it('finds the holding of the calling context or of its ancestors, never of a sibling', async () => {
    const holdings = new OwnerHoldings<Held>();
    const outer = new OwnerFrame(undefined);
    const mine: Held = { frame: outer, usable: true };
    holdings.add(mine);
    const sibling: Held = { frame: new OwnerFrame(undefined), usable: true };
    holdings.add(sibling);
    expect(holdings.ofCurrentContext(() => true)).toBeUndefined(); // no frame at all
    await runInFrame(outer, async () => {
      expect(holdings.ofCurrentContext(() => true)).toBe(mine);
      // A callee acquiring something else runs in a child frame: it still owns what outer holds.
      const inner = new OwnerFrame(currentFrame());
      await continueInFrame(inner, Promise.resolve());
      expect(currentFrame()).toBe(inner);
      expect(holdings.ofCurrentContext(() => true)).toBe(mine);
      expect(holdings.ofCurrentContext((holding) => holding !== mine)).toBeUndefined();
    });
  });

  it('tells whether some holding satisfies a predicate', () => {
    const holdings = new OwnerHoldings<Held>();
    holdings.add({ frame: new OwnerFrame(undefined), usable: false });
    expect(holdings.some((holding) => holding.usable)).toBe(false);
    holdings.add({ frame: new OwnerFrame(undefined), usable: true });
    expect(holdings.some((holding) => holding.usable)).toBe(true);
  });
});
