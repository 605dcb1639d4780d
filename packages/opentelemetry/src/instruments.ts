import { ValueType, type Counter, type Histogram, type Meter, type UpDownCounter } from '@opentelemetry/api';
import { DURATION_BUCKETS_MS, METRIC_NAMES } from './names.js';

/** Every instrument this package records (docs/observability.md, "OpenTelemetry"). */
export interface Instruments {
  acquireDuration: Histogram;
  holdDuration: Histogram;
  acquisitions: Counter;
  losses: Counter;
  waiters: UpDownCounter;
  sessionStateChanges: Counter;
  leaders: UpDownCounter;
  leadershipChanges: Counter;
  leadershipDuration: Histogram;
}

export function createInstruments(meter: Meter): Instruments {
  const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS_MS] };
  return {
    acquireDuration: meter.createHistogram(METRIC_NAMES.acquireDuration, {
      description: 'How long an acquisition took, from the call to its outcome',
      unit: 'ms',
      valueType: ValueType.DOUBLE,
      advice,
    }),
    holdDuration: meter.createHistogram(METRIC_NAMES.holdDuration, {
      description: 'How long a lock was held, from its grant to its release or loss',
      unit: 'ms',
      valueType: ValueType.DOUBLE,
      advice,
    }),
    acquisitions: meter.createCounter(METRIC_NAMES.acquisitions, {
      description: 'Acquisitions finished, by outcome',
      unit: '{acquisition}',
      valueType: ValueType.INT,
    }),
    losses: meter.createCounter(METRIC_NAMES.losses, {
      description: 'Held locks lost (not released), by code',
      unit: '{loss}',
      valueType: ValueType.INT,
    }),
    waiters: meter.createUpDownCounter(METRIC_NAMES.waiters, {
      description: 'Acquisitions in progress: waiting for their lock',
      unit: '{waiter}',
      valueType: ValueType.INT,
    }),
    sessionStateChanges: meter.createCounter(METRIC_NAMES.sessionStateChanges, {
      description: 'ZooKeeper session state changes, by the state entered',
      unit: '{change}',
      valueType: ValueType.INT,
    }),
    leaders: meter.createUpDownCounter(METRIC_NAMES.leaders, {
      description: 'Elections this process leads now',
      unit: '{leader}',
      valueType: ValueType.INT,
    }),
    leadershipChanges: meter.createCounter(METRIC_NAMES.leadershipChanges, {
      description: 'Leadership gained, lost (taken away) and released (given up), by event and code',
      unit: '{change}',
      valueType: ValueType.INT,
    }),
    leadershipDuration: meter.createHistogram(METRIC_NAMES.leadershipDuration, {
      description: 'How long a leadership lasted, from its grant to its loss or release',
      unit: 'ms',
      valueType: ValueType.DOUBLE,
      advice,
    }),
  };
}
