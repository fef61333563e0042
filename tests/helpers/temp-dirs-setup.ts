// Runs before each test file (vitest.config.ts setupFiles): the temporary folders the file made go when it ends.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.ts';

afterAll(removeTempDirs);
