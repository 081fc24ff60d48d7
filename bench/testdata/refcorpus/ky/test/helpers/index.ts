export * from './create-http-test-server.js';
export * from './parse-body.js';
export * from './with-page.js';
export * from './create-large-file.js';
