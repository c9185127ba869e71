import { Migration } from "@mikro-orm/migrations";

/** Merges asked of content and not yet recorded: what the merge resumer finishes or drops after an interruption. */
export class Migration20261128120000 extends Migration {
  override name = "Migration20261128120000";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "pending_merges" ("change_request_id" uuid not null, "space_id" uuid not null, "organization_id" uuid not null, "user_id" uuid not null, "token_id" text null, "requested_at" timestamptz not null, primary key ("change_request_id"));`,
    );
    this.addSql(`create index "pending_merges_requested_at_index" on "pending_merges" ("requested_at");`);
  }
}
