// Types for the Chrome DevTools Protocol JSON description (json/browser_protocol.json and
// json/js_protocol.json in the devtools-protocol package), modelled on protocol-schema.d.ts.

/** The primitive kinds a type, property or array item can have. */
export type PrimitiveKind = 'string' | 'integer' | 'number' | 'boolean' | 'any' | 'object' | 'array';

/** A type expression: either a `$ref` to a named type or an inline type. */
export interface TypeExpr {
  /** `Type` (same domain) or `Domain.Type` (cross-domain). */
  readonly $ref?: string;
  readonly type?: PrimitiveKind;
  /** Allowed values of a string type. */
  readonly enum?: readonly string[];
  /** Element type of an array. */
  readonly items?: TypeExpr;
  /** Fields of an inline object type. */
  readonly properties?: readonly Property[];
  readonly description?: string;
}

/** Flags shared by everything that can carry TSDoc. */
export interface Documented {
  readonly description?: string;
  readonly experimental?: boolean;
  readonly deprecated?: boolean;
}

/** A named field: object property, command parameter/return value or event parameter. */
export interface Property extends TypeExpr, Documented {
  readonly name: string;
  readonly optional?: boolean;
}

/** A named type in a domain's `types` list. */
export interface TypeDef extends TypeExpr, Documented {
  readonly id: string;
  readonly type: PrimitiveKind;
}

export interface Command extends Documented {
  readonly name: string;
  readonly parameters?: readonly Property[];
  readonly returns?: readonly Property[];
  /** Domain that actually implements the command. */
  readonly redirect?: string;
}

export interface Event extends Documented {
  readonly name: string;
  readonly parameters?: readonly Property[];
}

export interface Domain extends Documented {
  readonly domain: string;
  readonly dependencies?: readonly string[];
  readonly types?: readonly TypeDef[];
  readonly commands?: readonly Command[];
  readonly events?: readonly Event[];
}

/** One protocol JSON file (or several merged). */
export interface Protocol {
  readonly version?: { readonly major: string; readonly minor: string };
  readonly domains: readonly Domain[];
}
