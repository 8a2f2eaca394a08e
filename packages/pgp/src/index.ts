/**
 * @fairtable/pgp: fairtable and OpenPGP (docs/spec/pgp.md), on openpgp.js.
 * Detached signatures gpg makes and checks, encryption to the players' keys,
 * and bindings from a fairtable key to an OpenPGP identity. A package of its
 * own so that nothing in core, the seat or a browser bundle carries openpgp.js.
 */
export * from './keys.js';
export * from './signature.js';
export * from './encryption.js';
export * from './binding.js';
