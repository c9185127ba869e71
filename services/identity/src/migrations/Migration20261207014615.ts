import { Migration } from "@mikro-orm/migrations";

export class Migration20261207014615 extends Migration {
  override name = "Migration20261207014615";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "sessions" ("id" uuid not null, "user_id" uuid not null, "secret_hash" varchar(64) not null, "method" varchar(300) not null, "created_at" timestamptz not null, "last_used_at" timestamptz not null, "expires_at" timestamptz not null, "ended_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`alter table "sessions" add constraint "sessions_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(
      `create table "password_resets" ("id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "password_resets_user_id_index" on "password_resets" ("user_id");`);
    this.addSql(`alter table "password_resets" add constraint "password_resets_token_hash_unique" unique ("token_hash");`);

    this.addSql(
      `create table "user_passwords" ("user_id" uuid not null, "hash" varchar(512) not null, "failed_attempts" int not null default 0, "locked_until" timestamptz null, "updated_at" timestamptz not null, primary key ("user_id"));`,
    );

    this.addSql(`alter table "organizations" add "sign_in_methods" text[] not null default '{password,oidc,saml}';`);

    this.addSql(`alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(
      `alter table "password_resets" add constraint "password_resets_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "user_passwords" add constraint "user_passwords_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sessions" cascade;`);
    this.addSql(`drop table if exists "password_resets" cascade;`);
    this.addSql(`drop table if exists "user_passwords" cascade;`);

    this.addSql(`alter table "organizations" drop column "sign_in_methods";`);
  }
}
