// Types of the chaos audit (audit.mjs), for its test.
export function subjectMatches(filter: string, subject: string): boolean;
