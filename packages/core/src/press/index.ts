export * from './rules.js';
export * from './message.js';
export * from './seal.js';
export * from './reader.js';
export * from './roster.js';
