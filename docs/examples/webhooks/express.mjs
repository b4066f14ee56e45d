// Verifying verity webhooks in an Express app (docs/webhooks.md "Verifying in your app").
// Run: WEBHOOK_SECRET=whsec_… node express.mjs   (then: verity webhooks trigger verification.completed
//      --to http://127.0.0.1:3000/webhooks --secret "$WEBHOOK_SECRET")
import express from 'express';
import { verifyWebhook, WebhookVerificationError } from 'verity/webhooks';

const secret = process.env.WEBHOOK_SECRET; // the signing secret `verity webhooks add` printed once
const app = express();

// express.raw keeps the exact bytes the sender signed. express.json() would parse and re-encode
// them, and every signature would fail (verifyWebhook says `body_not_raw` or `body_reencoded`).
app.post('/webhooks', express.raw({ type: 'application/json', limit: '5mb' }), (req, res) => {
  let event;
  try {
    event = verifyWebhook(req.body, req.headers, secret);
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    return res.status(400).json({ error: { code: err.code, message: err.message } });
  }
  // Deliveries are at-least-once: deduplicate on event.id before acting on it.
  switch (event.type) {
    case 'verification.completed':
      console.log(`${event.type} ${event.id} ${event.data.request_id} ${event.data.verdict} ${event.data.trust_score}`);
      break;
    case 'credit.threshold':
      console.log(`${event.type} ${event.id} ${event.data.threshold}% of ${event.data.quota}`);
      break;
    default:
      console.log(`${event.type} ${event.id}`);
  }
  res.json({ received: true });
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`Listening on http://127.0.0.1:${server.address().port}`);
});
