// Verifying verity webhooks with plain node:http (docs/webhooks.md "Verifying in your app").
// Run: WEBHOOK_SECRET=whsec_… node node-http.mjs
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from 'verity/webhooks';

const secret = process.env.WEBHOOK_SECRET; // the signing secret `verity webhooks add` printed once
const MAX_BODY = 5 * 1024 * 1024;

const send = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/webhooks') return send(res, 404, { error: { code: 'not_found' } });
  // Collect the raw bytes (bounded): the signature covers exactly these.
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk); // past the cap, read on but keep nothing
  });
  req.on('end', () => {
    if (size > MAX_BODY) return send(res, 413, { error: { code: 'too_large' } });
    let event;
    try {
      event = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      return send(res, 400, { error: { code: err.code, message: err.message } });
    }
    // Deliveries are at-least-once: deduplicate on event.id before acting on it.
    console.log(`${event.type} ${event.id}`);
    send(res, 200, { received: true });
  });
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`Listening on http://127.0.0.1:${server.address().port}`);
});
