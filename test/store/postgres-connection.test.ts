// How a DATABASE_URL is read: TLS as libpq reads `sslmode` (which pg's own reading does not: it takes `require` as
// `verify-full`), and the database named in messages without its password.
import { describe, expect, it } from 'vitest';
import { compile, connectionOf, describeUrl } from '../../src/store/postgres-sql.js';

const URL = 'postgres://ops:s3cr%40t@db.internal:6432/voiceops';

describe('a DATABASE_URL', () => {
  it('reads sslmode as libpq does', () => {
    expect(connectionOf(URL).ssl).toBeFalsy();
    expect(connectionOf(`${URL}?sslmode=disable`).ssl).toBe(false);
    expect(connectionOf(`${URL}?sslmode=require`).ssl).toEqual({ rejectUnauthorized: false });
    expect(connectionOf(`${URL}?sslmode=prefer`).ssl).toEqual({ rejectUnauthorized: false });
    expect(connectionOf(`${URL}?sslmode=verify-full`).ssl).toEqual({});
  });

  it('gives the pool its host, port, database, user and decoded password', () => {
    expect(connectionOf(URL)).toMatchObject({
      host: 'db.internal',
      port: 6432,
      database: 'voiceops',
      user: 'ops',
      password: 's3cr@t',
    });
  });

  it('is named by its database and host, never with its user or password', () => {
    expect(describeUrl(URL)).toBe('the Postgres database "voiceops" on db.internal:6432');
    expect(describeUrl('postgresql://localhost')).toBe('the Postgres database "postgres" on localhost');
  });
});

describe('placeholders', () => {
  it('become $1… in order, one number per name, and text in quotes is left alone', () => {
    expect(compile('SELECT ? AS a, ? AS b')).toEqual({ text: 'SELECT $1 AS a, $2 AS b' });
    expect(compile("SELECT @x, '@y?', @x, @z")).toEqual({ text: "SELECT $1, '@y?', $1, $2", names: ['x', 'z'] });
  });
});
