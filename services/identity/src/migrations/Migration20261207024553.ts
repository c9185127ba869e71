import { Migration } from "@mikro-orm/migrations";

export class Migration20261207024553 extends Migration {
  override name = "Migration20261207024553";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "oidc_providers" ("id" uuid not null, "organization_id" uuid not null, "label" varchar(100) not null, "issuer" varchar(2048) not null, "client_id" varchar(255) not null, "secrets_ciphertext" bytea not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "oidc_providers_organization_id_index" on "oidc_providers" ("organization_id");`);

    this.addSql(
      `create table "oidc_sign_ins" ("state_hash" varchar(64) not null, "provider_id" uuid not null, "nonce" varchar(128) not null, "code_verifier" varchar(128) not null, "redirect_uri" varchar(2048) not null, "return_path" varchar(2048) not null, "invite_id" uuid null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("state_hash"));`,
    );
    this.addSql(`create index "oidc_sign_ins_provider_id_index" on "oidc_sign_ins" ("provider_id");`);

    this.addSql(
      `alter table "oidc_providers" add constraint "oidc_providers_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "oidc_sign_ins" add constraint "oidc_sign_ins_provider_id_foreign" foreign key ("provider_id") references "oidc_providers" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oidc_sign_ins" drop constraint "oidc_sign_ins_provider_id_foreign";`);

    this.addSql(`drop table if exists "oidc_providers" cascade;`);
    this.addSql(`drop table if exists "oidc_sign_ins" cascade;`);
  }
}
