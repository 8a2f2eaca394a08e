/**
 * @fairtable/client: play a seat through an untrusted relay, in the browser or in Node (docs/spec/relay.md, "The client").
 */
export * from './client.js';
export * from './relay-http.js';
export * from './receipt-timed.js';
export * from './receipts.js';
export * from './witnesses.js';
export * from './binding.js';
export * from './talk.js';
