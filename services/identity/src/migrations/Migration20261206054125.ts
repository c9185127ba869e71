import { Migration } from "@mikro-orm/migrations";

/** Invite links to a space or collection (with a level), expiry, enabling, and revocation kept as a row. */
export class Migration20261206054125 extends Migration {
  override name = "Migration20261206054125";

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "link_invites" add "level" text null, add "space_id" varchar(64) null, add "collection_id" varchar(64) null, add "expires_at" timestamptz null, add "enabled" boolean not null default true, add "revoked_at" timestamptz null;`,
    );
    this.addSql(
      `alter table "link_invites" add constraint "link_invites_level_check" check ("level" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "link_invites" drop constraint "link_invites_level_check";`);
    this.addSql(
      `alter table "link_invites" drop column "level", drop column "space_id", drop column "collection_id", drop column "expires_at", drop column "enabled", drop column "revoked_at";`,
    );
  }
}
