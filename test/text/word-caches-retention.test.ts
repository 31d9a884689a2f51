// The word caches of tokenize() and extractSkills() must keep the words, not the texts they were found in: a match of
// 13+ characters is a V8 slice of its text, so caching it as is kept every text that brought a new long word.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { extractSkills } from '../../src/text/skills.js';
import { tokenize } from '../../src/text/tokenize.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const FILLER = 'worked on backend services with the team for several years delivering features '.repeat(500); // ~40 KB

for (const [name, fn] of [['tokenize', tokenize], ['extractSkills', extractSkills]] as const) {
  test(`${name} keeps no text alive through its word cache`, () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    // A new long word in each text: a Latin one, and a run of Han characters (a word of its own).
    const han = (i: number) => '运维平台迁移工程'.repeat(2) + String.fromCharCode(0x4e00 + i);
    for (let i = 0; i < 500; i++) fn(`Led the Orchestrion${i.toString(36)}platform migration ${han(i)}. ${FILLER} #${i}`);
    gc();
    const retainedMb = (process.memoryUsage().heapUsed - before) / 1e6;
    // 500 texts of 40 KB are 20 MB; the words themselves well under 1 MB.
    assert.ok(retainedMb < 5, `retained ${retainedMb.toFixed(1)} MB after 500 texts`);
  });
}
