// /logs/: the agent's log directory over HTTPS, as the kubelet serves /var/log (Go's http.FileServer): a
// directory answers with an HTML listing of its entries (sub-directories with a trailing slash), a file with its
// contents. Only what lies inside the directory is served: a path with a `..` segment, a NUL or a backslash is
// refused, and a symbolic link that leads outside is not found. Authentication and authorization are the HTTPS
// server's (the kubelet maps /logs to the nodes/log subresource).

import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import type * as http from 'node:http';
import { extname, join, sep } from 'node:path';

export const LOGS_PREFIX = '/logs/';

type Reply = (code: number, text: string) => void;

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
  "'": '&#39;',
};
const escapeHTML = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
const TEXT_EXTENSIONS = new Set(['', '.log', '.txt', '.out', '.err']);

/** The path below /logs/ as directory entries, or undefined when it is not one we serve. */
export function logPathSegments(urlPath: string): string[] | undefined {
  if (!urlPath.startsWith(LOGS_PREFIX)) return undefined;
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.slice(LOGS_PREFIX.length));
  } catch {
    return undefined;
  }
  if (rel.includes('\0') || rel.includes('\\')) return undefined;
  const segments = rel.split('/').filter((s) => s !== '' && s !== '.');
  return segments.includes('..') ? undefined : segments;
}

function within(root: string, p: string): boolean {
  return p === root || p.startsWith(root + sep);
}

/** Go's dirList: entries sorted by name, directories with a trailing slash. */
export function directoryListing(entries: readonly { name: string; dir: boolean }[]): string {
  const lines = [...entries]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => {
      const name = e.dir ? `${e.name}/` : e.name;
      return `<a href="${escapeHTML(encodeURI(name).replace(/[?#]/g, encodeURIComponent))}">${escapeHTML(name)}</a>\n`;
    });
  return `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${lines.join('')}</pre>\n`;
}

/** The handler for every path under /logs/, serving `dir`. */
export function logsRoute(
  dir: string,
): (req: http.IncomingMessage, res: http.ServerResponse, urlPath: string) => Promise<void> {
  return async (req, res, urlPath) => {
    const reply: Reply = (code, text) => {
      res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(text + '\n');
    };
    const segments = logPathSegments(urlPath);
    if (segments === undefined) return reply(400, 'invalid URL path');
    let root: string;
    let target: string;
    try {
      root = await realpath(dir);
      target = await realpath(join(root, ...segments));
    } catch {
      return reply(404, '404 page not found');
    }
    if (!within(root, target)) return reply(404, '404 page not found');
    const info = await stat(target);
    if (info.isDirectory()) {
      // As Go's FileServer: a directory is named with its trailing slash, so that relative links resolve.
      if (!urlPath.endsWith('/')) {
        res.writeHead(301, { Location: `${urlPath.slice(urlPath.lastIndexOf('/') + 1)}/` });
        res.end();
        return;
      }
      const entries = await readdir(target, { withFileTypes: true });
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(directoryListing(entries.map((e) => ({ name: e.name, dir: e.isDirectory() }))));
      return;
    }
    if (!info.isFile()) return reply(404, '404 page not found');
    const type = TEXT_EXTENSIONS.has(extname(target)) ? 'text/plain; charset=utf-8' : 'application/octet-stream';
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': String(info.size),
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD' || info.size === 0) return void res.end();
    // What exists when the request arrives: a log still being written is sent up to its size then.
    await new Promise<void>((resolve, reject) => {
      createReadStream(target, { start: 0, end: info.size - 1 })
        .on('error', reject)
        .on('end', resolve)
        .pipe(res);
    });
  };
}
