export {};
export * from './java.js';
