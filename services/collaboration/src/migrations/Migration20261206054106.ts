import { Migration } from "@mikro-orm/migrations";

/** Reviews of change requests: the reviewers asked, the reviews submitted; contributors' latest contribution. */
export class Migration20261206054106 extends Migration {
  override name = "Migration20261206054106";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "change_request_reviewers" ("change_request_id" uuid not null, "user_id" uuid not null, "space_id" uuid not null, "requested_by" uuid not null, "revision_id" varchar(64) not null, "requested_at" timestamptz not null, primary key ("change_request_id", "user_id"));`,
    );
    this.addSql(`create index "change_request_reviewers_requested_at_index" on "change_request_reviewers" ("change_request_id", "requested_at", "user_id");`);
    this.addSql(`create index "change_request_reviewers_space_user_index" on "change_request_reviewers" ("space_id", "user_id");`);

    this.addSql(
      `create table "change_request_reviews" ("id" uuid not null, "change_request_id" uuid not null, "space_id" uuid not null, "organization_id" uuid not null, "reviewer_id" uuid not null, "requested_by" uuid null, "status" text not null, "revision_id" varchar(64) not null, "outdated" boolean not null default false, "comment_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "change_request_reviews_created_at_index" on "change_request_reviews" ("change_request_id", "created_at", "id");`);
    this.addSql(`create index "change_request_reviews_reviewer_index" on "change_request_reviews" ("change_request_id", "reviewer_id");`);
    this.addSql(`create index "change_request_reviews_space_index" on "change_request_reviews" ("space_id");`);

    this.addSql(`alter table "change_request_contributors" add "last_contributed_at" timestamptz null;`);

    this.addSql(
      `alter table "change_request_reviews" add constraint "change_request_reviews_status_check" check ("status" in ('approved', 'changes-requested'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "change_request_reviewers" cascade;`);
    this.addSql(`drop table if exists "change_request_reviews" cascade;`);

    this.addSql(`alter table "change_request_contributors" drop column "last_contributed_at";`);
  }
}
