// One plain HTTP(S) GET for tests that talk to an endpoint directly (an agent's port, a raw path), reading the whole
// reply. Certificates are not checked unless the options say so: the agents' serving certificates are self-signed.

import * as http from 'node:http';
import * as https from 'node:https';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function httpGet(url: string, options: https.RequestOptions = {}): Promise<Reply> {
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { rejectUnauthorized: false, agent: false, ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}
