/**
 * `@zk-recipes/testing`: real ZooKeeper servers ({@link TestingServer}) and ensembles
 * ({@link TestingCluster}) for tests, with TLS, SASL and ACL helpers, session expiry, a fault proxy
 * and the nemesis (docs/testing.md).
 *
 * @module @zk-recipes/testing
 */
export * from './TestingServer.js';
export * from './TestingCluster.js';
export type { TestingTls, TestingTlsOption } from './tls/testingTls.js';
export type { PemPair } from './tls/testCertificates.js';
export type { ClientAuth } from './tls/serverTlsConfig.js';
export type { TestingSaslOptions } from './sasl.js';
export type { ResolvedClusterOptions, ResolvedServerBasics, ResolvedServerOptions, ServerBasics, TestingClusterOptions, TestingServerOptions } from './options.js';
export * from './zookeeperInstall.js';
export * from './fourLetterWord.js';
export * from './expireSession.js';
export * from './uniqueRoot.js';
export * from './testConnectString.js';
export { ServerStartError } from './ZooKeeperProcess.js';
export * from './java.js';
export { FaultProxy, type FaultProxyOptions, type FrameRecord } from './FaultProxy.js';
export {
  opName,
  sumTallies,
  tallyDelta,
  WATCH_EVENT_TYPES,
  WRITE_OPCODES,
  ZERO_TALLY,
  ZK_OPCODES,
  type WatchEventName,
  type WireTally,
  type ZkOpName,
} from './wireTally.js';
export * from './criticalSections.js';
export * from './runWorkers.js';
export * from './workerSide.js';
export * from './observeNodes.js';
export * from './nodeScriptArgs.js';
export * from './serverWatches.js';
export * from './operator.js';
export * from './digestAcl.js';
export * from './containerReaper.js';
export { Prng, randomSeed } from './nemesis/prng.js';
export { FAULT_KINDS, ENSEMBLE_FAULTS, makeSchedule, countKinds, type FaultKind, type FaultStep, type ScheduleOptions } from './nemesis/schedule.js';
export * from './nemesis/checker.js';
export { checkDeadlines, type Acquisition, type DeadlineCheck, type DeadlineInput, type DeadlineMiss } from './nemesis/deadlines.js';
export { faultAllowanceMs, findIdleGaps, idleBoundMs, type FaultSpan, type IdleGap, type IdleGapInput, type Wait } from './nemesis/idleGaps.js';
export { runNemesisWorker, STOP_LINE, type NemesisHandle, type NemesisWorkerOptions } from './nemesis/workerLoop.js';
export { NemesisProcess, type WorkerLine } from './nemesis/processes.js';
export { runNemesis, describeNemesis, nemesisVerdict, idleBoundsFor, NEMESIS_CLUSTER, DEADLINE_TOLERANCE_MS, type IdleBounds, type NemesisOptions, type NemesisResult, type FaultRecord } from './nemesis/runNemesis.js';
export * from './protocolCost.js';
export * from './machineLoad.js';
