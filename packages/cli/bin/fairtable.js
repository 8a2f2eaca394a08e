#!/usr/bin/env node
// The fairtable command. A checked-in launcher, so that npm can link it before the build has made dist/.
//
// The commands a player runs often (mail, play, keygen, audit, …) start from one bundle of the built modules
// (packages/cli/bundle/, made by `npm run build`): Node then reads a few files instead of about 300, and a
// `fairtable mail read` starts in about half the time. The audit's and the relay's threads are entry points of
// the bundle too, and the relay finds the web app from there as from dist/.
// The bundle is used only while it is as new as the build (bundle-fresh.js); otherwise, and for `demo`,
// --help and anything else, dist/ runs as built.
// FAIRTABLE_NO_BUNDLE=1 always runs dist/.
import process from 'node:process';
import { BUNDLE_MAIN, bundleFresh } from './bundle-fresh.js';

const BUNDLED = new Set([
  'mail',
  'audit',
  'relay',
  'play',
  'talk',
  'fetch',
  'keygen',
  'armor',
  'dearmor',
  'random',
  'simulate',
  'vrf',
  'rochambeau',
  'signidice',
  'diplomacy',
  'pgp',
]);
const command = process.argv[2] ?? '';
const bundled = BUNDLED.has(command) && !process.env.FAIRTABLE_NO_BUNDLE && bundleFresh();
await import(bundled ? BUNDLE_MAIN.href : '../dist/main.js');
