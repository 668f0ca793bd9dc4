// Accessibility checks with axe-core, frames included (axe follows the Tickets iframe).

import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/** The WCAG 2.2 AA rule sets (A and AA of 2.0, 2.1 and 2.2). */
export const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * Rules axe counts as experimental, so leaves out unless asked, that check a WCAG A or AA
 * criterion: label-content-name-mismatch is 2.5.3 Label in Name (a calendar day's name must
 * contain what the day shows).
 */
export const EXPERIMENTAL_AA = ['label-content-name-mismatch'];

/**
 * The page's serious and critical axe violations as one readable line each (rule: selectors),
 * empty when clean.
 */
export async function axeViolations(page: Page, include?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page })
    .options({ rules: Object.fromEntries(EXPERIMENTAL_AA.map((rule) => [rule, { enabled: true }])) })
    .withTags(WCAG_AA);
  if (include) {
    builder = builder.include(include);
  }
  const results = await builder.analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map(
    (v) => `${v.id} (${v.impact ?? 'n/a'}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
  );
}
