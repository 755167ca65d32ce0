// The page builds its DOM from text: nothing in its script parses HTML, so nothing the app sends can become markup.
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const HTML_SINKS = /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser)\b/;

describe("the playground page's script", () => {
  it('never parses HTML', async () => {
    const scripts = (await readdir('src/playground/page')).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(1);
    for (const name of scripts) {
      const source = await readFile(`src/playground/page/${name}`, 'utf8');
      expect(source.match(HTML_SINKS)?.[0], name).toBeUndefined();
    }
  });
});
