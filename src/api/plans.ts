import type { Plan } from './errors.js';
import type { VerificationKind } from './ids.js';

/** Plans, rates, quotas and credit prices (DESIGN.md "Contract decisions"), in one table. */
export const PLAN_RANK: Record<Plan, number> = { starter: 0, pro: 1, business: 2, enterprise: 3 };
export const planAtLeast = (plan: Plan, needed: Plan): boolean => PLAN_RANK[plan] >= PLAN_RANK[needed];

export const PLAN_LIMITS: Record<Plan, { livePerMinute: number; monthlyCredits: number }> = {
  starter: { livePerMinute: 60, monthlyCredits: 1_000 },
  pro: { livePerMinute: 300, monthlyCredits: 10_000 },
  business: { livePerMinute: 1_000, monthlyCredits: 50_000 },
  enterprise: { livePerMinute: 3_000, monthlyCredits: 250_000 },
};
export const TEST_KEY_PER_HOUR = 100;

/** The least plan for each operation; media needs `business` (SPEC 5.4). */
export const REQUIRED_PLAN: Record<VerificationKind, Plan> = {
  claim: 'starter',
  business: 'starter',
  document: 'starter',
  media: 'business',
};
/** The extra registry source of the highest tier (SPEC 1; DESIGN.md). */
export const OPENCORPORATES_PLAN: Plan = 'enterprise';

export const CREDIT_THRESHOLDS = [75, 90, 100] as const;

export function creditsFor(
  kind: VerificationKind,
  opts: { officers?: boolean; filings?: boolean } = {},
): number {
  switch (kind) {
    case 'claim':
      return 1;
    case 'business':
      return 2 + (opts.officers ? 1 : 0) + (opts.filings ? 1 : 0);
    case 'document':
      return 3;
    case 'media':
      return 5;
  }
}
