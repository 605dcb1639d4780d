import { expect } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';

/** What `fn` threw, checked to be an InvalidArgumentError (fails the test if it threw nothing). */
export function invalid(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return err as InvalidArgumentError;
  }
  throw new Error('expected an InvalidArgumentError');
}
