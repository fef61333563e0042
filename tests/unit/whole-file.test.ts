import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { writeWholeFile } from '../../electron/core/whole-file.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

let folder: string;
beforeEach(() => {
  folder = tempDir('sluice-whole-file-');
});

describe('writeWholeFile', () => {
  it('creates an owner-only file by default and leaves nothing else in the folder', () => {
    const file = path.join(folder, 'token');
    writeWholeFile(file, 'abc\n');
    expect(fs.readFileSync(file, 'utf8')).toBe('abc\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(folder)).toEqual(['token']);
  });

  it('keeps an existing file’s mode and writes through a symbolic link when asked', () => {
    const real = path.join(folder, 'real.json');
    fs.writeFileSync(real, 'old');
    fs.chmodSync(real, 0o640);
    const link = path.join(folder, 'link.json');
    fs.symlinkSync(real, link);
    writeWholeFile(link, 'new', { keepFile: true });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, 'utf8')).toBe('new');
    expect(fs.statSync(real).mode & 0o777).toBe(0o640);
  });

  it('replaces a file without keepFile, at the given mode', () => {
    const file = path.join(folder, 'plain');
    fs.writeFileSync(file, 'old', { mode: 0o644 });
    writeWholeFile(file, 'new');
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('throws the file system’s error and leaves the old file and no temporary file when the rename fails', () => {
    const target = path.join(folder, 'a-folder');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'inside'), 'x'); // a non-empty folder cannot be renamed over
    expect(() => writeWholeFile(target, 'text')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(fs.readdirSync(folder)).toEqual(['a-folder']);
  });
});
