import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

test('defaults follow the operating contract', () => {
  const c = loadConfig({});
  assert.equal(c.PORT, 3000);
  assert.equal(c.HOST, '127.0.0.1');
  assert.equal(c.DATA_DIR, './.data');
  assert.equal(c.PROCESS_ROLE, 'all');
  assert.equal(c.MATCH_ENGINE, 'auto');
  assert.equal(c.engine, 'heuristic', 'auto without an endpoint is the heuristic engine');
  assert.equal(c.EMBEDDINGS, 'local');
  assert.equal(c.LOG_LEVEL, 'info');
  assert.equal(c.DATABASE_URL, undefined);
  assert.equal(c.llm.maxResponseBytes, 32 * 1024 * 1024, 'a model answer body is capped at 32 MiB');
  assert.equal(c.DB_STATEMENT_TIMEOUT_MS, 30_000);
  assert.equal(c.DB_LOCK_TIMEOUT_MS, 10_000);
  // A crashed worker's run is claimed again within about a minute: once its lease runs out, at an idle worker's next poll.
  assert.ok(c.RUN_LEASE_MS + c.WORKER_POLL_MS <= 60_000, `lease ${c.RUN_LEASE_MS} ms + poll ${c.WORKER_POLL_MS} ms`);
  assert.ok(c.RUN_HEARTBEAT_MS * 2 <= c.RUN_LEASE_MS, 'a live worker renews its lease well before it runs out');
});

test('a statement or lock timeout of 0 turns it off, and a lock timeout without a statement timeout is accepted', () => {
  const c = loadConfig({ DB_STATEMENT_TIMEOUT_MS: '0', DB_LOCK_TIMEOUT_MS: '60000' });
  assert.equal(c.DB_STATEMENT_TIMEOUT_MS, 0);
  assert.equal(c.DB_LOCK_TIMEOUT_MS, 60_000);
});

test('auto picks the llm engine when an endpoint is configured', () => {
  assert.equal(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' }).engine, 'llm');
});

test('a bad value stops the boot with a message naming the variable', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ PROCESS_ROLE: 'both' }, /PROCESS_ROLE/],
    [{ MATCH_ENGINE: 'gpt' }, /MATCH_ENGINE/],
    [{ EMBEDDINGS: 'remote' }, /EMBEDDINGS/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL/],
    [{ MATCH_ENGINE: 'llm' }, /MATCH_ENGINE.*LLM_BASE_URL/],
    [{ RUN_LEASE_MS: '1000', RUN_HEARTBEAT_MS: '900' }, /RUN_HEARTBEAT_MS/],
    [{ LLM_MAX_RESPONSE_BYTES: '65536' }, /LLM_MAX_RESPONSE_BYTES/],
    [{ DB_STATEMENT_TIMEOUT_MS: '-1' }, /DB_STATEMENT_TIMEOUT_MS/],
    [{ DB_LOCK_TIMEOUT_MS: 'soon' }, /DB_LOCK_TIMEOUT_MS/],
    [{ DB_STATEMENT_TIMEOUT_MS: '5000', DB_LOCK_TIMEOUT_MS: '6000' }, /DB_LOCK_TIMEOUT_MS.*DB_STATEMENT_TIMEOUT_MS/],
    // Numbers are decimal digits: "0x50" was port 80 and "1e3" a thousand.
    [{ PORT: '0x50' }, /PORT/],
    [{ SHUTDOWN_GRACE_MS: '1e3' }, /SHUTDOWN_GRACE_MS/],
    [{ ORG_DAILY_BUDGET_USD: 'Infinity' }, /ORG_DAILY_BUDGET_USD/],
    // An endpoint without http(s) booted as llm, and every run then failed on an "unsupported protocol".
    [{ LLM_BASE_URL: 'localhost:11434' }, /LLM_BASE_URL.*http/],
    [{ LLM_BASE_URL: 'ftp://models.example/v1' }, /LLM_BASE_URL/],
    // A bootstrap key no Authorization header can carry was registered, and then every request with it was a 401.
    [{ BOOTSTRAP_API_KEY: 'correct horse battery staple 2026' }, /BOOTSTRAP_API_KEY.*printable ASCII/],
    [{ BOOTSTRAP_API_KEY: 'clé-très-secrète-pour-le-service-2026' }, /BOOTSTRAP_API_KEY/],
    [{ BOOTSTRAP_API_KEY: 'tab\tinside-the-key-0123456789' }, /BOOTSTRAP_API_KEY/],
  ];
  for (const [env, pattern] of cases) {
    assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && pattern.test(err.message), JSON.stringify(env));
  }
});

test('empty strings count as unset, and so do values of spaces alone; spaces around a number are no part of it', () => {
  assert.equal(loadConfig({ DATABASE_URL: '', PORT: '' }).PORT, 3000);
  // Read as 0 before: no statement timeout, no shutdown grace, a daily budget of $0.
  const blank = loadConfig({ PORT: ' ', DB_STATEMENT_TIMEOUT_MS: ' ', SHUTDOWN_GRACE_MS: '\t', ORG_DAILY_BUDGET_USD: ' ' });
  assert.deepEqual([blank.PORT, blank.DB_STATEMENT_TIMEOUT_MS, blank.SHUTDOWN_GRACE_MS, blank.ORG_DAILY_BUDGET_USD], [3000, 30_000, 10_000, 50]);
  assert.equal(loadConfig({ DB_POOL_MAX: ' 4 ', ORG_DAILY_BUDGET_USD: '12.5' }).DB_POOL_MAX, 4);
  // Spellings of a number that were read before are still read.
  assert.deepEqual([loadConfig({ ORG_DAILY_BUDGET_USD: '.5' }).ORG_DAILY_BUDGET_USD, loadConfig({ ORG_DAILY_BUDGET_USD: '+5' }).ORG_DAILY_BUDGET_USD, loadConfig({ ORG_DAILY_BUDGET_USD: '5.' }).ORG_DAILY_BUDGET_USD], [0.5, 5, 5]);
  assert.deepEqual([loadConfig({ CACHE_TTL_MS: '5000.0' }).CACHE_TTL_MS, loadConfig({ PORT: '+80' }).PORT], [5000, 80]);
  // A secret file's trailing newline is no part of the key a client sends.
  assert.equal(loadConfig({ BOOTSTRAP_API_KEY: 'tm_0123456789_abcdefghijklmnopqrstuvwxyz\n' }).BOOTSTRAP_API_KEY, 'tm_0123456789_abcdefghijklmnopqrstuvwxyz');
});

test('CORS_ORIGINS takes origins as a browser sends them, or *: an entry that could never match stops the boot', () => {
  assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,http://[::1]:8080' }).CORS_ORIGINS, [
    'https://app.example.com',
    'http://localhost:5173',
    'http://[::1]:8080',
  ]);
  assert.deepEqual(loadConfig({ CORS_ORIGINS: '*' }).CORS_ORIGINS, ['*']);
  // Apps in a webview and browser extensions have origins of their own schemes; a sandboxed page's is "null".
  assert.deepEqual(loadConfig({ CORS_ORIGINS: 'capacitor://localhost,chrome-extension://abcdefghijklmnop,null' }).CORS_ORIGINS, ['capacitor://localhost', 'chrome-extension://abcdefghijklmnop', 'null']);
  for (const bad of ['https://app.example.com/', 'app.example.com', 'https://app.example.com/recruit', 'https://APP.example.com', 'https://app.example.com:443', 'file:///tmp/page.html']) {
    assert.throws(() => loadConfig({ CORS_ORIGINS: `https://ok.example.com,${bad}` }), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /CORS_ORIGINS: ".*" is no origin a browser sends/);
      assert.ok(err.message.includes(bad), err.message);
      return true;
    }, bad);
  }
});
