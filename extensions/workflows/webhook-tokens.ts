// The secret of each webhook wait: an HMAC of its node run under a key this extension keeps in its own
// database, so no token is ever stored, each wait has its own, and checking one is a constant-time
// comparison of two digests.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';

const KEY = 'webhook_key';

export class WebhookTokens {
  private constructor(private readonly key: Buffer) {}

  static async open(db: Knex): Promise<WebhookTokens> {
    await db('workflow_kv').insert({ key: KEY, value: randomBytes(32).toString('base64') }).onConflict('key').ignore();
    const row = (await db('workflow_kv').where({ key: KEY }).first()) as { value: string };
    return new WebhookTokens(Buffer.from(row.value, 'base64'));
  }

  tokenFor(nodeRunId: string): string {
    return createHmac('sha256', this.key).update(`webhook:${nodeRunId}`).digest('base64url');
  }

  matches(nodeRunId: string, given: string): boolean {
    const expected = createHmac('sha256', this.key).update(this.tokenFor(nodeRunId)).digest();
    const actual = createHmac('sha256', this.key).update(given).digest();
    return timingSafeEqual(expected, actual);
  }
}
