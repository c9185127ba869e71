// Types of the chaos audit's SQL (sql.mjs), for its test.
export function presentRowsFilter(columns: { column_name: string; data_type: string }[], alias?: string): string;
export function contentTeamMemberships(columns: { column_name: string; data_type: string }[]): string;
export function identityTeamMembers(teamMemberColumns: { column_name: string; data_type: string }[], teamColumns: { column_name: string; data_type: string }[]): string;
