import { Migration } from "@mikro-orm/migrations";

// Slow on purpose: concurrent runs overlap inside it, where an unguarded second run would try to
// create the same table (and record the same migration) again.
export class Migration20260201000000 extends Migration {
  async up(): Promise<void> {
    this.addSql(`select pg_sleep(0.3);`);
    this.addSql(`create table "widgets" ("id" int not null, primary key ("id"));`);
  }
}
