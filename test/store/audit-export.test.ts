import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/store/audit.js';
import { EXPORT_COLUMNS, toCsv, toJsonl } from '../../src/store/audit-export.js';
import { collect } from './audit-support.js';
import { parseCsv } from './rfc4180.js';

const HASH = 'ab'.repeat(32);

const event = (overrides: Partial<AuditEvent> = {}): AuditEvent => ({
  id: 1,
  at: '2026-11-01T09:00:00.000Z',
  actorId: 'U0123ABC',
  source: 'command',
  action: 'number.buy',
  outcome: 'requested',
  correlationId: 'corr-1',
  hash: HASH,
  ...overrides,
});

const csv = async (events: Iterable<AuditEvent> | AsyncIterable<AuditEvent>) => (await collect(toCsv(events))).join('');

describe('toCsv', () => {
  it('writes a header row, then one CRLF-terminated row per event, params as JSON text', async () => {
    const text = await csv([
      event(),
      event({
        id: 2,
        actorName: 'ada',
        teamId: 'T1',
        channelId: 'C1',
        target: 'Sales, "EU"',
        params: { region: 'US' },
        outcome: 'failed',
        errorCode: 'conflict',
        errorMessage: 'line one\nline two',
      }),
    ]);

    expect(text).toBe(
      'id,at,actorId,actorName,teamId,channelId,source,action,target,outcome,errorCode,errorMessage,correlationId,' +
        'params,hash\r\n' +
        `1,2026-11-01T09:00:00.000Z,U0123ABC,,,,command,number.buy,,requested,,,corr-1,,${HASH}\r\n` +
        '2,2026-11-01T09:00:00.000Z,U0123ABC,ada,T1,C1,command,number.buy,"Sales, ""EU""",failed,conflict,' +
        `"line one\nline two",corr-1,"{""region"":""US""}",${HASH}\r\n`,
    );
  });

  it('neutralises cells a spreadsheet would run as a formula', async () => {
    const names = ['=HYPERLINK("http://x")', '+1+1', '-2', '@SUM(A1)', '\tTab', '\rCR', 'plain', "'quoted"];
    const rows = parseCsv(await csv(names.map((actorName) => event({ actorName }))));
    const column = EXPORT_COLUMNS.indexOf('actorName');

    expect(rows.slice(1).map((row) => row[column])).toEqual([
      '\'=HYPERLINK("http://x")',
      "'+1+1",
      "'-2",
      "'@SUM(A1)",
      "'\tTab",
      "'\rCR",
      'plain',
      "'quoted",
    ]);
  });

  it('writes only the header for no events', async () => {
    expect(parseCsv(await csv([]))).toEqual([[...EXPORT_COLUMNS]]);
  });

  it('writes each event as it comes from an asynchronous source, such as AuditLog.since', async () => {
    async function* events() {
      yield event();
      yield event({ id: 2 });
    }
    const rows = parseCsv(await csv(events()));
    expect(rows.map((row) => row[EXPORT_COLUMNS.indexOf('id')])).toEqual(['id', '1', '2']);
  });

  it('round-trips any text through a strict RFC 4180 reader, every row with every column', async () => {
    const special = fc.string({ unit: fc.constantFrom('"', ',', '\r', '\n', '=', '+', '-', '@', '\t', "'", 'a', ' ') });
    const text = fc.oneof(special, fc.string({ unit: 'binary' }));
    const events = fc.array(
      fc.record({
        actorId: text,
        actorName: fc.option(text, { nil: undefined }),
        target: fc.option(text, { nil: undefined }),
        errorMessage: fc.option(text, { nil: undefined }),
        correlationId: text,
        params: fc.option(fc.dictionary(text, fc.jsonValue()), { nil: undefined }),
      }),
      { maxLength: 5 },
    );
    const inert = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
    const at = (name: (typeof EXPORT_COLUMNS)[number]) => EXPORT_COLUMNS.indexOf(name);

    await fc.assert(
      fc.asyncProperty(events, async (fields) => {
        const input = fields.map((f, index) => event({ ...f, id: index + 1 }));
        const [header, ...rows] = parseCsv(await csv(input));

        expect(header).toEqual([...EXPORT_COLUMNS]);
        expect(rows).toHaveLength(input.length);
        rows.forEach((row, index) => {
          const original = input[index] as AuditEvent;
          expect(row).toHaveLength(EXPORT_COLUMNS.length);
          expect(row[at('actorId')]).toBe(inert(original.actorId));
          expect(row[at('actorName')]).toBe(inert(original.actorName ?? ''));
          expect(row[at('target')]).toBe(inert(original.target ?? ''));
          expect(row[at('errorMessage')]).toBe(inert(original.errorMessage ?? ''));
          expect(row[at('correlationId')]).toBe(inert(original.correlationId));
          expect(row[at('params')]).toBe(original.params === undefined ? '' : JSON.stringify(original.params));
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('toJsonl', () => {
  it('writes one JSON object per line, every column present and in order, null when absent', async () => {
    const lines = await collect(toJsonl([event(), event({ id: 2, target: 'a\nb', params: { region: 'US' } })]));

    expect(lines).toEqual([
      '{"id":1,"at":"2026-11-01T09:00:00.000Z","actorId":"U0123ABC","actorName":null,"teamId":null,' +
        '"channelId":null,"source":"command","action":"number.buy","target":null,"outcome":"requested",' +
        '"errorCode":null,"errorMessage":null,"correlationId":"corr-1","params":null,' +
        `"hash":"${HASH}"}\n`,
      '{"id":2,"at":"2026-11-01T09:00:00.000Z","actorId":"U0123ABC","actorName":null,"teamId":null,' +
        '"channelId":null,"source":"command","action":"number.buy","target":"a\\nb","outcome":"requested",' +
        '"errorCode":null,"errorMessage":null,"correlationId":"corr-1","params":{"region":"US"},' +
        `"hash":"${HASH}"}\n`,
    ]);
    expect(Object.keys(JSON.parse(lines[0] ?? ''))).toEqual([...EXPORT_COLUMNS]);
  });
});
