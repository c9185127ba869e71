import { Migration } from "@mikro-orm/migrations";

/**
 * Branches of a space's history for change requests (services/content/src/revisions/branches,
 * docs/revisions.md § Branches): one row per change request naming its head and where it forked;
 * the revisions made on a branch carry its id. Spaces get the version of their change-request and
 * comment counters (a projection of the collaboration service's events, applied in order).
 */
export class Migration20261121100500 extends Migration {
  override name = "Migration20261121100500";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "branches" ("id" uuid not null, "space_id" uuid not null, "number" int not null, "head_revision_id" varchar(64) not null, "initial_revision_id" varchar(64) not null, "merged_ancestor_revision_id" varchar(64) null, "merged_revision_id" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "branches" add constraint "branches_space_number_unique" unique ("space_id", "number");`);

    this.addSql(`alter table "revisions" add column "branch_id" uuid null;`);

    this.addSql(`alter table "spaces" add column "counters_version" bigint not null default 0;`);
  }
}
