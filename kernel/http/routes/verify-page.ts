// GET /api/auth/verify: the page where a person enters (or confirms) a device's user code and approves
// or denies it. Self-contained (no external assets); its one script and one style carry a per-response
// nonce, and the Content-Security-Policy allows nothing else. The page holds no secret: approving
// needs the person's own key (or, on the server's machine, the local owner's standing).
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { normalizeUserCode } from '../../auth/device.js';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
label{display:block;margin-top:1rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
#user_code{font:1.5rem monospace;letter-spacing:.2em;text-transform:uppercase}button{margin:1.25rem .5rem 0 0;padding:.6rem 1.2rem;font-size:1rem}
#result{margin-top:1.25rem;font-weight:600}.hint{color:#555;font-size:.9rem}`;

const SCRIPT = `const form=document.getElementById('device');const result=document.getElementById('result');
async function decide(action){result.textContent='…';const key=document.getElementById('api_key').value.trim();
const headers={'content-type':'application/json'};if(key)headers.authorization='Bearer '+key;
try{const res=await fetch('/api/auth/device/authorize',{method:'POST',headers,body:JSON.stringify({user_code:document.getElementById('user_code').value,action})});
const body=await res.json().catch(()=>({}));
result.textContent=res.ok?(body.status==='approved'?'Approved: return to your device, it signs in now.':'Denied: the device gets no access.'):(body.error||('Refused ('+res.status+')'));}
catch(e){result.textContent='The server could not be reached.';}}
form.addEventListener('submit',(e)=>{e.preventDefault();decide(e.submitter&&e.submitter.value==='deny'?'deny':'approve');});`;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function verifyPage(ctx: Koa.Context): void {
  const given = typeof ctx.query.user_code === 'string' ? normalizeUserCode(ctx.query.user_code) ?? '' : '';
  const nonce = randomBytes(16).toString('base64');
  ctx.set('Content-Security-Policy', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Roost: sign in a device</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main><h1>Sign in a device</h1>
<p>Check that the code below is the one your device shows, then approve it. The device gets a key of your tenant with your role.</p>
<form id="device">
<label for="user_code">Code shown on the device</label>
<input id="user_code" name="user_code" autocomplete="off" spellcheck="false" required maxlength="12" placeholder="WDJB-MJHT" value="${escape(given)}">
<label for="api_key">Your API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="off">
<p class="hint">Leave it empty on the server's own machine, where you are its owner.</p>
<button type="submit" name="action" value="approve">Approve</button><button type="submit" name="action" value="deny">Deny</button>
</form><p id="result" role="status" aria-live="polite"></p></main>
<script nonce="${nonce}">${SCRIPT}</script></body></html>`;
}
