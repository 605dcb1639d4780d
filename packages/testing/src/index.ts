export * from './TestingServer.js';
export * from './options.js';
export * from './zookeeperInstall.js';
export * from './fourLetterWord.js';
export * from './expireSession.js';
export * from './uniqueRoot.js';
export * from './testConnectString.js';
export { ServerStartError } from './ZooKeeperProcess.js';
export * from './java.js';
