#!/usr/bin/env node
// The fairtable command. A checked-in launcher, so that npm can link it before the build has made dist/.
import '../dist/main.js';
