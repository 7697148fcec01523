/** Valid request bodies; tests override what they are about. */
export function organizationBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { legalName: 'Paws & Claws LLC', legalType: 'llc', taxId: '12-3456789', ...overrides };
}

/** Values that must never leave the service in clear (spec section 6), and an organization carrying them. */
export const SECRETS = { account: '000111222333444', ownerTaxId: '987-65-4321', organizationTaxId: 'ORGTAX7777111' };

export function organizationWithSecrets(): Record<string, unknown> {
  return organizationBody({
    taxId: SECRETS.organizationTaxId,
    bankAccounts: [{ routing: '110000000', account: SECRETS.account }],
    owners: [{ firstname: 'Ada', lastname: 'L', taxId: SECRETS.ownerTaxId, ownership: 100 }],
  });
}

export function policyBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ownerFirstname: 'Rosa',
    ownerLastname: 'Diaz',
    petName: 'Biscuit',
    effectiveDate: '2026-01-01',
    expirationDate: '2027-01-01',
    coverageSlug: 'accident-illness-basic',
    ...overrides,
  };
}

/**
 * Matches `value` standing alone (as a JSON or SQL value), not inside a uuid, a timestamp or
 * base64, where a few digits such as a cvc occur by chance.
 */
export function standalone(value: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z+/=-])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z+/=-])`);
}

/** What a ledger's lines add up to (charges, or the money functions' lines), in cents. */
export const sumOfAmounts = (lines: readonly { amount: number }[]): number => lines.reduce((total, line) => total + line.amount, 0);
