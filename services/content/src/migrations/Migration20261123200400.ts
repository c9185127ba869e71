import { Migration } from "@mikro-orm/migrations";

/**
 * Git sync state of a space (services/content/src/git): the repository and ref last synced
 * (without credentials), the commit and the revision of that sync (the base of the next import's
 * merge), the repository path → page / file id mapping and the last operation.
 */
export class Migration20261123200400 extends Migration {
  override name = "Migration20261123200400";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "git_syncs" ("space_id" uuid not null, "organization_id" uuid not null, "url" text not null, "ref" text not null, "project_directory" text not null default '', "commit_oid" varchar(64) null, "commit_message" text not null default '', "commit_by_service" boolean not null default false, "revision_id" uuid null, "pages" jsonb not null default '{}', "files" jsonb not null default '{}', "operation" jsonb null, "updated_at" timestamptz not null, primary key ("space_id"));`,
    );
  }
}
