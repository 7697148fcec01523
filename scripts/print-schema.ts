import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { buildServiceSchema } from '../src/graphql-server/schema.js';

/** `npm run schema`: writes schema/schema.graphql from the code (a test checks it is current). */
writeFileSync('schema/schema.graphql', printSchema(await buildServiceSchema()) + '\n');
console.log('wrote schema/schema.graphql');
