import { Migration } from '@mikro-orm/migrations';

/** Site-spaces whose space content deleted (restorable) are hidden until it is restored. */
export class Migration20261123213000 extends Migration {

  override name = 'Migration20261123213000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "site_spaces" add column "space_deleted" boolean not null default false;`);
  }

}
