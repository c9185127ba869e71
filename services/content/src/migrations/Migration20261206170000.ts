import { Migration } from "@mikro-orm/migrations";

/**
 * Git syncs get a connection for Git Sync both ways, its sealed credentials and webhook secret, and
 * the import a push queued and the export a head move queued (attempts, when due); existing ones
 * are not connected. Branches keep the subject their change request was merged under.
 */
export class Migration20261206170000 extends Migration {
  override name = "Migration20261206170000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" add column "connection" jsonb null, add column "secrets_ciphertext" bytea null,
      add column "pending_commit" varchar(64) null, add column "pending_attempts" int not null default 0, add column "pending_due_at" timestamptz null,
      add column "export_revision_id" varchar(64) null, add column "export_actor_id" varchar(64) null, add column "export_attempts" int not null default 0,
      add column "export_due_at" timestamptz null;`);
    this.addSql(`alter table "branches" add column "merge_subject" text not null default '';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" drop column "connection", drop column "secrets_ciphertext",
      drop column "pending_commit", drop column "pending_attempts", drop column "pending_due_at",
      drop column "export_revision_id", drop column "export_actor_id", drop column "export_attempts", drop column "export_due_at";`);
    this.addSql(`alter table "branches" drop column "merge_subject";`);
  }
}
