// Style sheets are bundled by esbuild; importing one yields nothing to use.
declare module '*.css';
