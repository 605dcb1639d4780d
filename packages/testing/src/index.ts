export {};
export * from './java.js';
export { FaultProxy, type FaultProxyOptions, type FrameRecord } from './FaultProxy.js';
