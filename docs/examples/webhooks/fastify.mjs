// Verifying verity webhooks in a Fastify app (docs/webhooks.md "Verifying in your app").
// Run: WEBHOOK_SECRET=whsec_… node fastify.mjs
import Fastify from 'fastify';
import { verifyWebhook, WebhookVerificationError } from 'verity/webhooks';

const secret = process.env.WEBHOOK_SECRET; // the signing secret `verity webhooks add` printed once
const app = Fastify();

// The webhook route lives in its own plugin (encapsulation): only there is a JSON body kept as
// the raw Buffer the sender signed; the rest of the app keeps Fastify's JSON parser.
app.register(async (hooks) => {
  hooks.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 5 * 1024 * 1024 }, (_req, body, done) => done(null, body));
  hooks.post('/webhooks', async (request, reply) => {
    let event;
    try {
      event = verifyWebhook(request.body, request.headers, secret);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      return reply.code(400).send({ error: { code: err.code, message: err.message } });
    }
    // Deliveries are at-least-once: deduplicate on event.id before acting on it.
    if (event.type === 'verification.completed')
      console.log(`${event.type} ${event.id} ${event.data.request_id} ${event.data.verdict} ${event.data.trust_score}`);
    else console.log(`${event.type} ${event.id}`);
    return { received: true };
  });
});

const address = await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
console.log(`Listening on ${address}`);
