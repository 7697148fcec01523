import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The policy ledger has one writer (src/policies/ledger/ledger-write.ts, through post.ts for a
 * step on a policy): a transaction, a charge, a payment or a state row written anywhere else could skip the
 * lock, the fold, the state row or the event. So no file of `src/` outside `src/policies/ledger/`
 * names the ledger's inserts or inserts into its tables in SQL text; the migrations (which make
 * the tables) are the exception. Test support and scripts/ (seeds, the benchmark's baseline)
 * write fixtures and are not read here.
 */
const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');
const LEDGER = 'policies/ledger/';
const MIGRATIONS = 'database/migrations/';

/** The inserts' names, and an insert into a ledger table, as SQL text or as a write map's table (`insertStatement('charge', …)`). */
const LEDGER_WRITES = [
  /\bINSERT_(?:TRANSACTIONS|CHARGES|STATES|PAYMENTS)\b/,
  /\binsert\s+into\s+(?:public\.)?"?(?:policy_transaction|charge|policy_state|policy_payment)\b/i,
  /\binsertStatement\(\s*['"`](?:policy_transaction|charge|policy_state|policy_payment)['"`]/,
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

const writesLedger = (file: string) => {
  const text = readFileSync(join(SRC, file), 'utf8');
  return LEDGER_WRITES.some((pattern) => pattern.test(text));
};

describe('one writer for the policy ledger', () => {
  const files = sourceFiles(SRC).map((file) => relative(SRC, file));

  it('no file outside src/policies/ledger/ (but migrations) writes a transaction, a charge or a state row', () => {
    const elsewhere = files.filter((file) => !file.startsWith(LEDGER) && !file.startsWith(MIGRATIONS) && writesLedger(file));
    expect(elsewhere).toEqual([]);
  });

  // The patterns see what they are meant to: the writer's own inserts, and each form of the SQL.
  it('sees the writer', () => {
    expect(writesLedger('policies/ledger/ledger-write.ts')).toBe(true);
    expect(files.filter((file) => file.startsWith(LEDGER) && writesLedger(file))).toEqual(['policies/ledger/ledger-write.ts']);
    const seen = (text: string) => LEDGER_WRITES.some((pattern) => pattern.test(text));
    expect(
      [
        'with made as (${INSERT_TRANSACTIONS})',
        'insert into charge (id) values (?)',
        'INSERT INTO policy_state (policy_id) select 1',
        `insert into "policy_transaction" (id) values (?)`,
        "insertStatement('charge', CHARGE_WRITE)",
        'insert into policy_payment (id) values (?)',
      ].map(seen),
    ).toEqual([true, true, true, true, true, true]);
    expect(['insert into policy (id) values (?)', 'insert into charge_type (id) values (?)', 'select * from charge'].map(seen)).toEqual([
      false,
      false,
      false,
    ]);
  });
});
