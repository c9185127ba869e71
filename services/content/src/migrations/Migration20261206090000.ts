import { Migration } from "@mikro-orm/migrations";

/** People's direct grants on spaces and collections (GitBook's user permissions). */
export class Migration20261206090000 extends Migration {
  override name = "Migration20261206090000";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "user_grants" ("id" uuid not null, "organization_id" uuid not null, "user_id" uuid not null, "target_type" text not null, "target_id" uuid not null, "level" text not null, "version" int not null default 0, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "user_grants" add constraint "user_grants_target_user_unique" unique ("target_type", "target_id", "user_id");`);
    this.addSql(`create index "user_grants_organization_user_index" on "user_grants" ("organization_id", "user_id");`);
    this.addSql(`alter table "user_grants" add constraint "user_grants_target_type_check" check ("target_type" in ('space', 'collection'));`);
    this.addSql(
      `alter table "user_grants" add constraint "user_grants_level_check" check ("level" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "user_grants" cascade;`);
  }
}
