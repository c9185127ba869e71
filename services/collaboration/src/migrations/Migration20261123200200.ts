import { Migration } from "@mikro-orm/migrations";

/**
 * The organization's change request list (across its spaces): keyset indexes on (organization,
 * status, date, id) for both orders, and contributors by user for its `contributor` filter.
 */
export class Migration20261123200200 extends Migration {
  override name = "Migration20261123200200";

  override up(): void | Promise<void> {
    this.addSql(`create index "change_requests_organization_status_updated_at_index" on "change_requests" ("organization_id", "status", "updated_at", "id");`);
    this.addSql(`create index "change_requests_organization_status_created_at_index" on "change_requests" ("organization_id", "status", "created_at", "id");`);
    this.addSql(`create index "change_request_contributors_user_index" on "change_request_contributors" ("user_id");`);
  }
}
