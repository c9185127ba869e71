import { Migration } from "@mikro-orm/migrations";

/** OpenAPI specifications get GitBook's visibility; every existing one stays private (members only). */
export class Migration20261206093000 extends Migration {
  override name = "Migration20261206093000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "openapi_specs" add column "visibility" text not null default 'private';`);
    this.addSql(`alter table "openapi_specs" add constraint "openapi_specs_visibility_check" check ("visibility" in ('private', 'public'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "openapi_specs" drop constraint "openapi_specs_visibility_check";`);
    this.addSql(`alter table "openapi_specs" drop column "visibility";`);
  }
}
