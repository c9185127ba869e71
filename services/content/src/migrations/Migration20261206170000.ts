import { Migration } from "@mikro-orm/migrations";

/**
 * Git syncs get a connection for Git Sync both ways, its sealed credentials and webhook secret, and
 * the import a push queued (its commit, attempts, when it is due); existing ones are not connected.
 */
export class Migration20261206170000 extends Migration {
  override name = "Migration20261206170000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" add column "connection" jsonb null, add column "secrets_ciphertext" bytea null,
      add column "pending_commit" varchar(64) null, add column "pending_attempts" int not null default 0, add column "pending_due_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" drop column "connection", drop column "secrets_ciphertext",
      drop column "pending_commit", drop column "pending_attempts", drop column "pending_due_at";`);
  }
}
