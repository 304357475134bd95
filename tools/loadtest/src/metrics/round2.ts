/** Rounds to two decimals: every figure the tool reports (rates, shares, ms) is given this precisely. */
export const round2 = (v: number): number => Math.round(v * 100) / 100;
