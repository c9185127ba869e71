import { Migration } from "@mikro-orm/migrations";

/** Principals of integration installations: users marked with the installation they act for. */
export class Migration20261127120000 extends Migration {
  override name = "Migration20261127120000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "users" add column "integration_installation_id" varchar(128) null;`);
    this.addSql(`alter table "users" add constraint "users_integration_installation_id_unique" unique ("integration_installation_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "users" drop constraint "users_integration_installation_id_unique";`);
    this.addSql(`alter table "users" drop column "integration_installation_id";`);
  }
}
