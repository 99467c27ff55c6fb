// addressparser 1.x ships no types; this is the part listminer uses.
declare module 'addressparser' {
  namespace addressparser {
    interface Address {
      name: string;
      address?: string;
      group?: Address[];
    }
  }
  function addressparser(value: string): addressparser.Address[];
  export default addressparser;
}
