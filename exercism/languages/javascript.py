"""JavaScript: jest with babel, as the exercises' package.json runs it, from one install that
--prepare makes with npm and each run links as its node_modules (read-only); `xtest(` and
`xit(` become `test(` and `it(`."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from exercism.exercise import Exercise
from exercism.language import Language, Report
from exercism.prepare import run
from sandbox import Limits

PACKAGES = {
    "@babel/core": "^7.25.2",
    "@exercism/babel-preset-javascript": "^0.2.1",
    "babel-jest": "^29.6.4",
    "core-js": "~3.37.1",
    "jest": "^29.7.0",
}
"""What the exercises' package.json needs to run its tests (its linters left out)."""


def prepare(folder: Path, exercises: Sequence[Exercise], say: Callable[[str], None]) -> None:
    """jest, babel and the exercises' babel preset installed by npm into folder/node_modules."""
    say(f"installing {', '.join(PACKAGES)} from npm")
    manifest = {"name": "coder-polyglot-javascript", "private": True, "devDependencies": PACKAGES}
    (folder / "package.json").write_text(json.dumps(manifest, indent=1))
    run(["npm", "install", "--no-audit", "--no-fund", "--silent"], folder)


REPORTER = """const fs = require('fs');
const path = require('path');

const OUTCOMES = { passed: 'passed', failed: 'failed' };

class CoderReport {
  constructor() {
    this.fd = Number(process.env.CODER_REPORT_FD);
  }

  say(line) {
    if (!Number.isInteger(this.fd)) return;
    try {
      fs.writeSync(this.fd, line.replace(/[\\r\\n]/g, ' ') + '\\n');
    } catch (error) {
      // the report is gone: the run's end shows the tests that never said
    }
  }

  onTestResult(test, result) {
    const file = path.basename(test.path);
    for (const one of result.testResults) {
      const name = [file, ...one.ancestorTitles, one.title].join(' > ');
      this.say(`case ${OUTCOMES[one.status] || 'skipped'} ${name}`);
    }
    if (result.testExecError || result.failureMessage && !result.numFailingTests) {
      this.say(`error ${file}`);
    }
  }

  onRunComplete() {
    this.say('done');
  }
}

module.exports = CoderReport;
"""
"""jest's reporter, in jest's own process: each test file's tests once the file has run, a file
that failed as a whole, then the run's end."""

SETUP = """const fs = require('fs');

const real = { expect, test, it, describe, afterEach, Object_is: Object.is };
const push = Array.prototype.push;
const MATCHERS = Symbol.for('$$jest-matchers-object');
const matchers = { ...globalThis[MATCHERS].matchers };
const checks = [
  ['toBe', () => real.expect(1).toBe(2)],
  ['not.toBe', () => real.expect(1).not.toBe(1)],
  ['toEqual', () => real.expect([1, { a: 1 }]).toEqual([1, { a: 2 }])],
  ['toEqual of strings', () => real.expect('ab').toEqual('ba')],
  ['toBe of strings', () => real.expect('ab').toBe('ba')],
  ['toEqual of numbers', () => real.expect(1).toEqual(2)],
  ['toStrictEqual', () => real.expect({ a: 1 }).toStrictEqual({ a: 1, b: 2 })],
  ['toThrow', () => real.expect(() => 1).toThrow()],
  ['toBeCloseTo', () => real.expect(1).toBeCloseTo(2)],
  ['toBeTruthy', () => real.expect(0).toBeTruthy()],
  ['toBeFalsy', () => real.expect(1).toBeFalsy()],
  ['toBeNull', () => real.expect(1).toBeNull()],
  ['toBeUndefined', () => real.expect(1).toBeUndefined()],
  ['toContain', () => real.expect([1]).toContain(2)],
  ['toHaveLength', () => real.expect([1]).toHaveLength(2)],
  ['toMatch', () => real.expect('a').toMatch(/b/)],
  ['toBeGreaterThan', () => real.expect(1).toBeGreaterThan(2)],
  ['toBeLessThan', () => real.expect(2).toBeLessThan(1)],
];

function jestState() {
  const symbol = Object.getOwnPropertySymbols(globalThis).find(
    (s) => String(s) === 'Symbol(JEST_STATE_SYMBOL)',
  );
  return symbol ? globalThis[symbol] : undefined;
}

function changed() {
  const found = [];
  for (const name of ['expect', 'test', 'it', 'describe']) {
    if (globalThis[name] !== real[name]) found.push(`${name} was replaced`);
  }
  if (Object.is !== real.Object_is) found.push('Object.is was replaced');
  if (Array.prototype.push !== push) found.push('Array.prototype.push was replaced');
  const now = globalThis[MATCHERS] || {};
  for (const [name, matcher] of Object.entries(matchers)) {
    if ((now.matchers || {})[name] !== matcher) found.push(`the matcher ${name} was replaced`);
  }
  if ((now.customEqualityTesters || []).length) found.push('equality testers were added');
  const running = (jestState() || {}).currentlyRunningTest;
  const errors = running && running.errors;
  if (errors && (errors.push !== push || Object.isFrozen(errors))) {
    found.push("the test's list of errors was changed");
  }
  const state = real.expect.getState();
  for (const [name, check] of checks) {
    let failed = false;
    try {
      check();
    } catch (error) {
      failed = true;
    }
    if (!failed) found.push(`${name} no longer fails`);
  }
  let passes = true;
  try {
    real.expect([1, 'a']).toEqual([1, 'a']);
  } catch (error) {
    passes = false;
  }
  if (!passes) found.push('toEqual no longer passes');
  real.expect.setState({ assertionCalls: state.assertionCalls });
  return found;
}

real.afterEach(() => {
  const found = changed();
  if (found.length === 0) return;
  const fd = Number(process.env.CODER_REPORT_FD);
  try {
    fs.writeSync(fd, `tamper the test framework was changed: ${found.join(', ')}\\n`);
  } catch (error) {
    // the test fails all the same
  }
  throw new Error(`The test framework was changed: ${found.join(', ')}`);
});
"""
"""Set up before each test file (before it loads the solution): after every test, jest's
assertions must still fail where they must and pass where they must."""
HARNESS = ".coder-report"


LANGUAGE = Language(
    name="javascript",
    title="JavaScript",
    library="JavaScript language and Node's built-in modules (no npm packages)",
    fence="javascript",
    programs=("node",),
    install="install Node.js 18 or newer (apt-get install nodejs npm)",
    probe=("node", "--version"),
    steps=(
        (
            "node",
            "node_modules/jest/bin/jest.js",
            "--ci",
            "--no-watchman",
            "--cacheDirectory={here}/.jest-cache",
            f"--setupFilesAfterEnv={{here}}/{HARNESS}/setup.js",
            "--reporters=default",
            f"--reporters={{here}}/{HARNESS}/reporter.js",
            # jest's 5 s per test: parallel-letter-frequency's 50 workers take longer here.
            "--testTimeout=60000",
        ),
    ),
    links={"node_modules": "{cache}/javascript/node_modules"},
    unskip=((r"\bxtest\(", "test("), (r"\bxit\(", "it("), (r"\bxdescribe\(", "describe(")),
    noise=(r"(?m)^Time:.*$", r" \(\d+(\.\d+)? ?m?s\)"),
    needs=Limits(seconds=120, cpu_seconds=240, memory=0, processes=256, file_size=0),
    report=Report(files={f"{HARNESS}/reporter.js": REPORTER, f"{HARNESS}/setup.js": SETUP}),
    prepare=prepare,
)
