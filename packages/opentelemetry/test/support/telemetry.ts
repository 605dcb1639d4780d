/**
 * OpenTelemetry's SDK with in-memory exporters, to read back what `instrument()` recorded: metrics
 * through a PeriodicExportingMetricReader flushed on demand into an InMemoryMetricExporter,
 * spans through a SimpleSpanProcessor into an InMemorySpanExporter.
 */
import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export class Telemetry {
  readonly metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // An interval no test lasts: exports happen when a test flushes.
  readonly reader = new PeriodicExportingMetricReader({ exporter: this.metricExporter, exportIntervalMillis: 3_600_000 });
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  readonly spanExporter = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.spanExporter)] });

  /** Every metric recorded so far (cumulative), by instrument name. */
  async metrics(): Promise<Map<string, MetricData>> {
    this.metricExporter.reset();
    await this.reader.forceFlush();
    const byName = new Map<string, MetricData>();
    for (const resource of this.metricExporter.getMetrics()) {
      for (const scope of resource.scopeMetrics) for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
    }
    return byName;
  }

  /** One instrument's data points; none when it recorded nothing. */
  async points(name: string): Promise<Array<DataPoint<unknown>>> {
    return ((await this.metrics()).get(name)?.dataPoints ?? []) as Array<DataPoint<unknown>>;
  }

  /** The sum (counter, up-down counter) of the point with exactly these attributes, or undefined. */
  async sum(name: string, attributes: Attributes): Promise<number | undefined> {
    const point = (await this.points(name)).find((p) => sameAttributes(p.attributes, attributes));
    return point === undefined ? undefined : (point.value as number);
  }

  /** The histogram point with exactly these attributes, or undefined. */
  async histogram(name: string, attributes: Attributes): Promise<Histogram | undefined> {
    const metric = (await this.metrics()).get(name);
    if (metric === undefined) return undefined;
    if (metric.dataPointType !== DataPointType.HISTOGRAM) throw new Error(`${name} is not a histogram`);
    return metric.dataPoints.find((p) => sameAttributes(p.attributes, attributes))?.value;
  }

  spans(): ReadableSpan[] {
    return this.spanExporter.getFinishedSpans();
  }

  async shutdown(): Promise<void> {
    await this.meterProvider.shutdown();
    await this.tracerProvider.shutdown();
  }
}

export function sameAttributes(actual: Attributes, expected: Attributes): boolean {
  const keys = Object.keys(actual);
  return keys.length === Object.keys(expected).length && keys.every((key) => actual[key] === expected[key]);
}
