/** A deck nobody controls (docs/spec/deck.md): joint key, ElGamal cards, verifiable shuffles, dealing, and stand-ins for a player who left. */
export { DECK_DST, Transcript, randomScalar, type DeckTable, type RPoint } from './group.js';
export { combineKeyShares, keyShareValid, makeKeyShare, type JointKey, type KeyShare } from './joint-key.js';
export { MAX_CARDS, cardOf, cardPoint, newDeck, type Ciphertext } from './elgamal.js';
export { checkShuffle, proveShuffle, randomPermutation, shuffle, verifyShuffle, type ShuffleProof, type ShuffleStatement } from './shuffle-proof.js';
export {
  cardUnder,
  checkPlay,
  checkShares,
  decryptionShare,
  decryptionShareValid,
  openFaceUp,
  openOwnCard,
  type DecryptionShare,
  type PlayedCard,
} from './decrypt.js';
export {
  backUpKey,
  backupContext,
  backupMatchesKey,
  combineStandIns,
  holderPoint,
  leftTheHand,
  openBackupShare,
  standInShare,
  standInShareValid,
  type KeyBackup,
  type StandInShare,
} from './threshold.js';
