/*
 * Compile-time equality of two types, used beside each option schema to keep the schema's input
 * type and the hand-written public type from drifting apart (a schema change that the public type
 * does not follow, or the other way round, stops the build).
 */

/**
 * `true` when `A` and `B` are the same type, `false` otherwise. Stricter than assignability both
 * ways: an optional property is not the same as a required one, `readonly` counts, and `any` equals
 * only `any`.
 */
export type TypesEqual<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * Compiles only when `Condition` is `true`: `type _Check = AssertTrue<TypesEqual<X, Y>>` fails with
 * "Type 'false' does not satisfy the constraint 'true'" when X and Y differ.
 */
export type AssertTrue<Condition extends true> = Condition;
