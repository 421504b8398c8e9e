/** Validates rdjson output against reviewdog's published schema and a strict copy of it. */
import { readFileSync } from 'node:fs';
import AjvModule from 'ajv-draft-04';

type Schema = Record<string, unknown>;

// A CommonJS module: under NodeNext the default import is its exports object, the class is `.default`.
const Ajv = AjvModule.default;

const published = JSON.parse(readFileSync(new URL('../fixtures/rdjson/DiagnosticResult.json', import.meta.url), 'utf8')) as Schema;

/** The published schema allows anything extra; the strict copy catches misspelt or invented fields. */
function strictCopy(schema: Schema): Schema {
  const copy = structuredClone(schema);
  const defs = copy['definitions'] as Record<string, Schema>;
  for (const def of Object.values(defs)) def['additionalProperties'] = false;
  // Properties that hold a $ref carry their own additionalProperties: true in the generated schema.
  for (const def of Object.values(defs)) {
    for (const prop of Object.values((def['properties'] ?? {}) as Record<string, Schema>)) {
      if ('$ref' in prop) delete prop['additionalProperties'];
    }
  }
  const require = (name: string, fields: string[]) => {
    defs[name]!['required'] = fields;
  };
  require('reviewdog.rdf.Diagnostic', ['message', 'location']);
  require('reviewdog.rdf.Location', ['path']);
  require('reviewdog.rdf.Range', ['start']);
  require('reviewdog.rdf.Position', ['line']);
  require('reviewdog.rdf.Suggestion', ['range', 'text']);
  (defs['reviewdog.rdf.Position']!['properties'] as Record<string, Schema>)['line']!['minimum'] = 1;
  (defs['reviewdog.rdf.Position']!['properties'] as Record<string, Schema>)['column']!['minimum'] = 1;
  return copy;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validatePublished = ajv.compile(published);
const validateStrict = new Ajv({ allErrors: true, strict: false }).compile(strictCopy(published));

/** Error messages from both schemas; empty when the document is valid rdjson. */
export function rdjsonErrors(document: unknown): string[] {
  const errors: string[] = [];
  if (!validatePublished(document)) errors.push(...(validatePublished.errors ?? []).map((e) => `published: ${e.instancePath} ${e.message}`));
  if (!validateStrict(document)) errors.push(...(validateStrict.errors ?? []).map((e) => `strict: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
  return errors;
}
