import { Migration } from "@mikro-orm/migrations";

// Not idempotent: applied twice it fails (the column exists), so it shows each migration runs once.
export class Migration20260201000100 extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "widgets" add column "name" varchar(64) null;`);
  }
}
