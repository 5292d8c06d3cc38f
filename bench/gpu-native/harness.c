/*
 * Native replay harness for the GPU path (issue 7). Replays traces written by bench/gpu-native/dump.ts
 * (the library's own GpuBackend recorded against a fake WebGL2 context) on a real GPU through
 * OpenGL ES 3.x on a headless EGL context (EGL_EXT_platform_device, no surface), unchanged shaders,
 * unchanged textures; checks y against the f64 reference in the dump and times the product.
 *
 *   harness [--min-ms N] [--max-reps N] [--device I] CASE_DIR...
 *   harness --probe   (fragment vs compute copy bandwidth and per-draw cost in one GLES context)
 *
 * Per case: replay the setup part of trace.txt (capability probe, program compiles, texture uploads,
 * two warm-up products), poison the result texture with NaN, replay one product, read y back and
 * compare (max over rows of |y - ref| / sum_j |a_ij x_j|, NaN = unwritten); then time the product:
 * GPU time per product from GL_TIME_ELAPSED_EXT queries (median), and wall time per product of a
 * batch with one glFinish at the end (CPU submission + GPU, what an application sees in a loop).
 * Prints one tab-separated ROW line per case.
 *
 * Build: gcc -O2 -std=c11 harness.c -o harness -lEGL -lGLESv2 -lm
 */
#define _GNU_SOURCE
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp_d);
  return n == 0 ? NAN : (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- EGL ------------------------------------------------------------------------------------ */

static PFNGLGENQUERIESEXTPROC pGenQueries;
static PFNGLBEGINQUERYEXTPROC pBeginQuery;
static PFNGLENDQUERYEXTPROC pEndQuery;
static PFNGLGETQUERYOBJECTUI64VEXTPROC pGetQueryui64;
static int have_timer;

static int egl_setup(int want_device) {
  PFNEGLQUERYDEVICESEXTPROC queryDevices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
  PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  PFNEGLQUERYDEVICESTRINGEXTPROC queryDeviceString = (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
  if (!queryDevices || !getPlatformDisplay) { fprintf(stderr, "EGL: no eglQueryDevicesEXT / eglGetPlatformDisplayEXT\n"); return 1; }
  EGLDeviceEXT devs[16];
  EGLint ndev = 0;
  if (!queryDevices(16, devs, &ndev) || ndev == 0) { fprintf(stderr, "EGL: no devices\n"); return 1; }
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < ndev; i++) {
      if (want_device >= 0 && i != want_device) continue;
      const char *ext = queryDeviceString ? queryDeviceString(devs[i], EGL_EXTENSIONS) : "";
      /* first pass: devices that are not Mesa's software device */
      if (pass == 0 && ext && strstr(ext, "EGL_MESA_device_software")) continue;
      EGLDisplay dpy = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
      EGLint major, minor;
      if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) continue;
      eglBindAPI(EGL_OPENGL_ES_API);
      EGLint cattr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE};
      EGLConfig cfg = NULL;
      EGLint ncfg = 0;
      eglChooseConfig(dpy, cattr, &cfg, 1, &ncfg);
      EGLint xattr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 2, EGL_NONE};
      EGLContext ctx = eglCreateContext(dpy, ncfg ? cfg : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, xattr);
      if (ctx == EGL_NO_CONTEXT) {
        xattr[3] = 0;
        ctx = eglCreateContext(dpy, ncfg ? cfg : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, xattr);
      }
      if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "EGL: device %d: no surfaceless ES3 context (0x%x)\n", i, eglGetError());
        continue;
      }
      printf("# EGL %d.%d, device %d of %d (%s)\n", major, minor, i, ndev, eglQueryString(dpy, EGL_VENDOR));
      printf("# GL_RENDERER %s | GL_VERSION %s | GLSL %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION), glGetString(GL_SHADING_LANGUAGE_VERSION));
      const char *exts = (const char *)glGetString(GL_EXTENSIONS);
      if (!exts || !strstr(exts, "GL_EXT_color_buffer_float")) printf("# WARNING: GL_EXT_color_buffer_float not listed\n");
      if (exts && strstr(exts, "GL_EXT_disjoint_timer_query")) {
        pGenQueries = (PFNGLGENQUERIESEXTPROC)eglGetProcAddress("glGenQueriesEXT");
        pBeginQuery = (PFNGLBEGINQUERYEXTPROC)eglGetProcAddress("glBeginQueryEXT");
        pEndQuery = (PFNGLENDQUERYEXTPROC)eglGetProcAddress("glEndQueryEXT");
        pGetQueryui64 = (PFNGLGETQUERYOBJECTUI64VEXTPROC)eglGetProcAddress("glGetQueryObjectui64vEXT");
        have_timer = pGenQueries && pBeginQuery && pEndQuery && pGetQueryui64;
      }
      GLint mts = 0, mal = 0, mfu = 0;
      glGetIntegerv(GL_MAX_TEXTURE_SIZE, &mts);
      glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &mal);
      glGetIntegerv(GL_MAX_FRAGMENT_UNIFORM_VECTORS, &mfu);
      printf("# MAX_TEXTURE_SIZE %d MAX_ARRAY_TEXTURE_LAYERS %d MAX_FRAGMENT_UNIFORM_VECTORS %d timer_query %s\n", mts, mal, mfu, have_timer ? "yes" : "no");
      return 0;
    }
  }
  fprintf(stderr, "EGL: no usable device\n");
  return 1;
}

/* ---- trace ---------------------------------------------------------------------------------- */

enum {
  O_T_CREATE, O_T_BIND, O_T_IMG2D, O_T_IMG3D, O_T_PARAM, O_PSTORE, O_F_CREATE, O_F_BIND, O_F_TEX2D, O_F_LAYER,
  O_CLEARBUF, O_READPIX, O_V_CREATE, O_V_BIND, O_S_CREATE, O_S_SRC, O_S_COMPILE, O_P_CREATE, O_P_ATTACH, O_P_LINK,
  O_P_USE, O_ULOC, O_U1I, O_U1F, O_U1IV, O_U1FV, O_U4FV, O_U4IV, O_ACTIVE, O_DISABLE, O_ENABLE, O_CMASK,
  O_VIEWPORT, O_DRAW, O_T_DEL, O_F_DEL, O_S_DEL, O_P_DEL, O_V_DEL, O_FLUSH, O_FINISH, O_MARK, O_COUNT
};
static const char *OPNAMES[O_COUNT] = {
  "T_CREATE", "T_BIND", "T_IMG2D", "T_IMG3D", "T_PARAM", "PSTORE", "F_CREATE", "F_BIND", "F_TEX2D", "F_LAYER",
  "CLEARBUF", "READPIX", "V_CREATE", "V_BIND", "S_CREATE", "S_SRC", "S_COMPILE", "P_CREATE", "P_ATTACH", "P_LINK",
  "P_USE", "ULOC", "U1I", "U1F", "U1IV", "U1FV", "U4FV", "U4IV", "ACTIVE", "DISABLE", "ENABLE", "CMASK",
  "VIEWPORT", "DRAW", "T_DEL", "F_DEL", "S_DEL", "P_DEL", "V_DEL", "FLUSH", "FINISH", "MARK"};

typedef struct {
  int op;
  int n;          /* ints in a */
  int64_t a[12];  /* fixed arguments */
  int32_t *v;     /* array payload (uniform arrays) */
  int nv;
  char *name;     /* ULOC name, MARK name */
} Op;

typedef struct {
  char matrix[128], kernel[64], dtype[16];
  long rows, cols, nnz, bytes, gpubytes;
  int result_tex, rw, rh, rlayers, draws;
  long rfloats;
  int ds;
  int lim_tex, lim_layers, lim_fuv;
  Op *ops;
  int nops, kernel_at, end_at;
  uint8_t *blob;
  size_t blob_size;
} Trace;

static char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc(n + 1);
  if (n > 0 && fread(p, 1, n, f) != (size_t)n) { fclose(f); free(p); return NULL; }
  p[n] = 0;
  fclose(f);
  if (size) *size = n;
  return p;
}

static int load_trace(const char *dir, Trace *t) {
  char path[4096];
  memset(t, 0, sizeof *t);
  snprintf(path, sizeof path, "%s/trace.txt", dir);
  char *text = slurp(path, NULL);
  if (!text) return -1;
  int cap = 1024;
  t->ops = malloc(cap * sizeof(Op));
  t->kernel_at = t->end_at = -1;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char word[32];
    int off = 0;
    if (sscanf(line, "%31s%n", word, &off) != 1) continue;
    char *rest = line + off;
    if (!strcmp(word, "CASE")) { sscanf(rest, "%127s %63s %15s", t->matrix, t->kernel, t->dtype); continue; }
    if (!strcmp(word, "SIZE")) { sscanf(rest, "%ld %ld %ld", &t->rows, &t->cols, &t->nnz); continue; }
    if (!strcmp(word, "BYTES")) { sscanf(rest, "%ld", &t->bytes); continue; }
    if (!strcmp(word, "GPUBYTES")) { sscanf(rest, "%ld", &t->gpubytes); continue; }
    if (!strcmp(word, "DRAWS")) { sscanf(rest, "%d", &t->draws); continue; }
    if (!strcmp(word, "LIMITS")) { sscanf(rest, "%d %d %d", &t->lim_tex, &t->lim_layers, &t->lim_fuv); continue; }
    if (!strcmp(word, "RESULT")) {
      char dec[16];
      sscanf(rest, "%d %d %d %d %ld %15s", &t->result_tex, &t->rw, &t->rh, &t->rlayers, &t->rfloats, dec);
      t->ds = !strcmp(dec, "ds");
      continue;
    }
    if (!strcmp(word, "EOF")) break;
    int op = -1;
    for (int i = 0; i < O_COUNT; i++) if (!strcmp(word, OPNAMES[i])) { op = i; break; }
    if (op < 0) { fprintf(stderr, "%s: unknown trace op %s\n", dir, word); return -1; }
    if (t->nops == cap) { cap *= 2; t->ops = realloc(t->ops, cap * sizeof(Op)); }
    Op *o = &t->ops[t->nops];
    memset(o, 0, sizeof *o);
    o->op = op;
    if (op == O_MARK) {
      while (*rest == ' ') rest++;
      o->name = strdup(rest);
      if (!strcmp(rest, "kernel")) t->kernel_at = t->nops;
      if (!strcmp(rest, "end")) t->end_at = t->nops;
    } else if (op == O_ULOC) {
      int p = 0;
      sscanf(rest, "%ld %ld %n", (long *)&o->a[0], (long *)&o->a[1], &p);
      o->n = 2;
      o->name = strdup(rest + p);
    } else if (op == O_U1IV || op == O_U1FV || op == O_U4FV || op == O_U4IV || op == O_CLEARBUF) {
      char *e = rest;
      int fixed = op == O_CLEARBUF ? 2 : 2; /* loc, count | buffer, drawbuffer */
      for (int i = 0; i < fixed; i++) o->a[i] = strtoll(e, &e, 10);
      o->n = fixed;
      int count = op == O_CLEARBUF ? 4 : (op == O_U4FV || op == O_U4IV) ? 4 * (int)o->a[1] : (int)o->a[1];
      o->v = malloc(sizeof(int32_t) * (count ? count : 1));
      for (int i = 0; i < count; i++) o->v[i] = (int32_t)(uint32_t)strtoll(e, &e, 10);
      o->nv = count;
    } else {
      char *e = rest;
      while (o->n < 12) {
        char *s = e;
        long long x = strtoll(e, &e, 10);
        if (e == s) break;
        o->a[o->n++] = x;
      }
    }
    t->nops++;
  }
  free(text);
  if (t->kernel_at < 0 || t->end_at < 0) { fprintf(stderr, "%s: trace has no kernel section\n", dir); return -1; }
  snprintf(path, sizeof path, "%s/blob.bin", dir);
  int fd = open(path, O_RDONLY);
  if (fd < 0) { perror(path); return -1; }
  struct stat st;
  fstat(fd, &st);
  t->blob_size = st.st_size;
  t->blob = st.st_size ? mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
  close(fd);
  return 0;
}

/* id maps: recorder ids -> GL names / locations */
#define MAXID (1 << 20)
static GLuint *objs;
static GLint *locs;
static int case_failed;

static GLuint obj(int64_t id) { return id > 0 && id < MAXID ? objs[id] : 0; }

static void check_shader(GLuint s, const char *what) {
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[8192];
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    fprintf(stderr, "%s compile failed:\n%s\n", what, log);
    case_failed = 1;
  }
}

static void run_ops(Trace *t, int from, int to) {
  for (int i = from; i < to; i++) {
    Op *o = &t->ops[i];
    int64_t *a = o->a;
    switch (o->op) {
      case O_T_CREATE: glGenTextures(1, &objs[a[0]]); break;
      case O_T_BIND: glBindTexture((GLenum)a[0], obj(a[1])); break;
      case O_T_IMG2D:
        glTexImage2D((GLenum)a[0], (GLint)a[1], (GLint)a[2], (GLsizei)a[3], (GLsizei)a[4], (GLint)a[5], (GLenum)a[6], (GLenum)a[7], a[8] < 0 ? NULL : t->blob + a[8]);
        break;
      case O_T_IMG3D:
        glTexImage3D((GLenum)a[0], (GLint)a[1], (GLint)a[2], (GLsizei)a[3], (GLsizei)a[4], (GLsizei)a[5], (GLint)a[6], (GLenum)a[7], (GLenum)a[8], a[9] < 0 ? NULL : t->blob + a[9]);
        break;
      case O_T_PARAM: glTexParameteri((GLenum)a[0], (GLenum)a[1], (GLint)a[2]); break;
      case O_PSTORE:
        if (a[0] < 0x9240 || a[0] > 0x9244) glPixelStorei((GLenum)a[0], (GLint)a[1]); /* WebGL-only unpack flags: no GLES equivalent */
        break;
      case O_F_CREATE: glGenFramebuffers(1, &objs[a[0]]); break;
      case O_F_BIND: glBindFramebuffer((GLenum)a[0], obj(a[1])); break;
      case O_F_TEX2D: glFramebufferTexture2D((GLenum)a[0], (GLenum)a[1], (GLenum)a[2], obj(a[3]), (GLint)a[4]); break;
      case O_F_LAYER: glFramebufferTextureLayer((GLenum)a[0], (GLenum)a[1], obj(a[2]), (GLint)a[3], (GLint)a[4]); break;
      case O_CLEARBUF: glClearBufferfv((GLenum)a[0], (GLint)a[1], (const GLfloat *)o->v); break;
      case O_READPIX: break; /* the dump's capability probe; the harness reads results itself */
      case O_V_CREATE: glGenVertexArrays(1, &objs[a[0]]); break;
      case O_V_BIND: glBindVertexArray(obj(a[0])); break;
      case O_S_CREATE: objs[a[0]] = glCreateShader((GLenum)a[1]); break;
      case O_S_SRC: {
        const GLchar *src = (const GLchar *)(t->blob + a[1]);
        GLint len = (GLint)a[2];
        glShaderSource(obj(a[0]), 1, &src, &len);
        break;
      }
      case O_S_COMPILE: glCompileShader(obj(a[0])); check_shader(obj(a[0]), t->kernel); break;
      case O_P_CREATE: objs[a[0]] = glCreateProgram(); break;
      case O_P_ATTACH: glAttachShader(obj(a[0]), obj(a[1])); break;
      case O_P_LINK: {
        glLinkProgram(obj(a[0]));
        GLint ok = 0;
        glGetProgramiv(obj(a[0]), GL_LINK_STATUS, &ok);
        if (!ok) {
          char log[8192];
          glGetProgramInfoLog(obj(a[0]), sizeof log, NULL, log);
          fprintf(stderr, "link failed: %s\n", log);
          case_failed = 1;
        }
        break;
      }
      case O_P_USE: glUseProgram(obj(a[0])); break;
      case O_ULOC: locs[a[0]] = glGetUniformLocation(obj(a[1]), o->name); break;
      case O_U1I: glUniform1i(locs[a[0]], (GLint)a[1]); break;
      case O_U1F: {
        uint32_t b = (uint32_t)a[1];
        float f;
        memcpy(&f, &b, 4);
        glUniform1f(locs[a[0]], f);
        break;
      }
      case O_U1IV: glUniform1iv(locs[a[0]], (GLsizei)a[1], (const GLint *)o->v); break;
      case O_U1FV: glUniform1fv(locs[a[0]], (GLsizei)a[1], (const GLfloat *)o->v); break;
      case O_U4FV: glUniform4fv(locs[a[0]], (GLsizei)a[1], (const GLfloat *)o->v); break;
      case O_U4IV: glUniform4iv(locs[a[0]], (GLsizei)a[1], (const GLint *)o->v); break;
      case O_ACTIVE: glActiveTexture((GLenum)a[0]); break;
      case O_DISABLE: glDisable((GLenum)a[0]); break;
      case O_ENABLE: glEnable((GLenum)a[0]); break;
      case O_CMASK: glColorMask(a[0], a[1], a[2], a[3]); break;
      case O_VIEWPORT: glViewport((GLint)a[0], (GLint)a[1], (GLsizei)a[2], (GLsizei)a[3]); break;
      case O_DRAW: glDrawArrays((GLenum)a[0], (GLint)a[1], (GLsizei)a[2]); break;
      case O_T_DEL: glDeleteTextures(1, &objs[a[0]]); objs[a[0]] = 0; break;
      case O_F_DEL: glDeleteFramebuffers(1, &objs[a[0]]); objs[a[0]] = 0; break;
      case O_S_DEL: glDeleteShader(obj(a[0])); objs[a[0]] = 0; break;
      case O_P_DEL: glDeleteProgram(obj(a[0])); objs[a[0]] = 0; break;
      case O_V_DEL: glDeleteVertexArrays(1, &objs[a[0]]); objs[a[0]] = 0; break;
      case O_FLUSH: glFlush(); break;
      case O_FINISH: glFinish(); break;
      case O_MARK: break;
    }
  }
}

static double *load_f64(const char *dir, const char *name, long n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t size = 0;
  char *p = slurp(path, &size);
  if (!p || size != (size_t)n * 8) { fprintf(stderr, "%s: expected %ld doubles\n", path, n); free(p); return NULL; }
  return (double *)p;
}

/* every layer of the result texture, RGBA/FLOAT */
static float *read_result(Trace *t, GLuint fbo) {
  size_t layer = (size_t)t->rw * t->rh * 4;
  float *buf = malloc(layer * t->rlayers * sizeof(float));
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  for (int l = 0; l < t->rlayers; l++) {
    glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, obj(t->result_tex), 0, l);
    glReadPixels(0, 0, t->rw, t->rh, GL_RGBA, GL_FLOAT, buf + layer * l);
  }
  glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, 0, 0, 0);
  return buf;
}

static void poison_result(Trace *t, GLuint fbo) {
  const GLfloat nan4[4] = {NAN, NAN, NAN, NAN};
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  for (int l = 0; l < t->rlayers; l++) {
    glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, obj(t->result_tex), 0, l);
    glViewport(0, 0, t->rw, t->rh);
    glClearBufferfv(GL_COLOR, 0, nan4);
  }
  glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, 0, 0, 0);
}


/* ---- --probe: the graphics path against compute shaders in the same context ---------------- */

static GLuint compile_prog(const char *vs, const char *fs, const char *cs) {
  GLuint p = glCreateProgram();
  const char *srcs[3] = {vs, fs, cs};
  GLenum types[3] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, 0x91B9 /* GL_COMPUTE_SHADER */};
  for (int i = 0; i < 3; i++) {
    if (!srcs[i]) continue;
    GLuint s = glCreateShader(types[i]);
    glShaderSource(s, 1, &srcs[i], NULL);
    glCompileShader(s);
    check_shader(s, "probe");
    glAttachShader(p, s);
  }
  glLinkProgram(p);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) { char log[4096]; glGetProgramInfoLog(p, sizeof log, NULL, log); fprintf(stderr, "probe link: %s\n", log); }
  return p;
}

typedef void (*Fn)(void *);
/* median GPU ms of fn over reps (timer query each), and wall ms per call of a batch */
static void time_fn(const char *label, Fn fn, void *arg, int reps, double bytes) {
  GLuint q[512];
  if (reps > 512) reps = 512;
  for (int w = 0; w < 3; w++) fn(arg);
  glFinish();
  double g[512];
  if (have_timer) {
    pGenQueries(reps, q);
    for (int r = 0; r < reps; r++) { pBeginQuery(GL_TIME_ELAPSED_EXT, q[r]); fn(arg); pEndQuery(GL_TIME_ELAPSED_EXT); }
    glFinish();
    for (int r = 0; r < reps; r++) { GLuint64 ns = 0; pGetQueryui64(q[r], GL_QUERY_RESULT_EXT, &ns); g[r] = ns / 1e6; }
  }
  double w0 = now_ms();
  for (int r = 0; r < reps; r++) fn(arg);
  glFinish();
  double wall = (now_ms() - w0) / reps;
  double gm = have_timer ? median(g, reps) : NAN;
  printf("PROBE\t%s\t%.5f\t%.5f\t%.1f\t0x%x\n", label, gm, wall, bytes > 0 ? bytes / 1e9 / (gm / 1e3) : 0.0, glGetError());
  fflush(stdout);
}

static const char *QUAD_VS = "#version 300 es\nvoid main() {\n  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);\n  gl_Position = vec4(p, 0.0, 1.0);\n}\n";
static GLuint g_prog, g_fbo, g_vao, g_tex_in, g_tex_out, g_buf_in, g_buf_out;
static int g_w, g_h, g_n4;

static void draw_full(void *a) { (void)a; glUseProgram(g_prog); glBindVertexArray(g_vao); glBindFramebuffer(GL_FRAMEBUFFER, g_fbo); glViewport(0, 0, g_w, g_h); glDrawArrays(GL_TRIANGLES, 0, 3); }
static void draw_many_1x1(void *a) { (void)a; glUseProgram(g_prog); glBindVertexArray(g_vao); glBindFramebuffer(GL_FRAMEBUFFER, g_fbo); glViewport(0, 0, 1, 1); for (int i = 0; i < 1000; i++) glDrawArrays(GL_TRIANGLES, 0, 3); }
typedef void (*PFNDISPATCH)(GLuint, GLuint, GLuint);
typedef void (*PFNBINDIMAGE)(GLuint, GLuint, GLint, GLboolean, GLint, GLenum, GLenum);
typedef void (*PFNBARRIER)(GLbitfield);
typedef void (*PFNTEXSTORAGE3D)(GLenum, GLsizei, GLenum, GLsizei, GLsizei, GLsizei);
static PFNDISPATCH pDispatch;
static PFNBINDIMAGE pBindImage;
static PFNBARRIER pBarrier;
static void dispatch_tex(void *a) { (void)a; glUseProgram(g_prog); glActiveTexture(GL_TEXTURE0); glBindTexture(GL_TEXTURE_2D_ARRAY, g_tex_in); pBindImage(0, g_tex_out, 0, GL_TRUE, 0, 0x88B9 /* WRITE_ONLY */, GL_RGBA32F); pDispatch(g_w / 16, g_h / 16, 1); pBarrier(0xFFFFFFFF); }
static void dispatch_buf(void *a) { (void)a; glUseProgram(g_prog); glBindBufferBase(0x90D2 /* SHADER_STORAGE_BUFFER */, 0, g_buf_in); glBindBufferBase(0x90D2, 1, g_buf_out); pDispatch(g_n4 / 256, 1, 1); pBarrier(0xFFFFFFFF); }

static void probe(void) {
  pDispatch = (PFNDISPATCH)eglGetProcAddress("glDispatchCompute");
  pBindImage = (PFNBINDIMAGE)eglGetProcAddress("glBindImageTexture");
  pBarrier = (PFNBARRIER)eglGetProcAddress("glMemoryBarrier");
  PFNTEXSTORAGE3D pTexStorage3D = (PFNTEXSTORAGE3D)eglGetProcAddress("glTexStorage3D");
  printf("PROBE\tlabel\tgpu_ms\twall_ms\tGBps\tglError\n");
  g_w = 4096; g_h = 2048; g_n4 = g_w * g_h; /* 8M RGBA32F texels = 128 MiB, the copy case's layout */
  size_t bytes = (size_t)g_n4 * 16;
  float *host = malloc(bytes);
  for (size_t i = 0; i < (size_t)g_n4 * 4; i++) host[i] = (float)(i % 1000) * 0.001f;
  glGenVertexArrays(1, &g_vao);
  glGenFramebuffers(1, &g_fbo);
  glGenTextures(1, &g_tex_in);
  glBindTexture(GL_TEXTURE_2D_ARRAY, g_tex_in);
  pTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_RGBA32F, g_w, g_h, 1);
  glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, g_w, g_h, 1, GL_RGBA, GL_FLOAT, host);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glGenTextures(1, &g_tex_out);
  glBindTexture(GL_TEXTURE_2D_ARRAY, g_tex_out);
  pTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_RGBA32F, g_w, g_h, 1);
  glBindFramebuffer(GL_FRAMEBUFFER, g_fbo);
  glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, g_tex_out, 0, 0);
  /* 1. fragment copy: texelFetch + render target (what the library's copy/SpMV kernels do) */
  g_prog = compile_prog(QUAD_VS,
    "#version 300 es\nprecision highp float; precision highp sampler2DArray;\nuniform sampler2DArray s; out vec4 o;\n"
    "void main() { o = texelFetch(s, ivec3(ivec2(gl_FragCoord.xy), 0), 0); }\n", NULL);
  glUseProgram(g_prog);
  glUniform1i(glGetUniformLocation(g_prog, "s"), 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D_ARRAY, g_tex_in);
  time_fn("fragment_copy_128MiB (read+write)", draw_full, NULL, 100, 2.0 * bytes);
  /* 2. fragment write only */
  g_prog = compile_prog(QUAD_VS, "#version 300 es\nprecision highp float; out vec4 o;\nvoid main() { o = vec4(gl_FragCoord.xy, 1.0, 2.0); }\n", NULL);
  time_fn("fragment_fill_128MiB (write)", draw_full, NULL, 100, 1.0 * bytes);
  /* 3. per-draw cost: 1000 draws of one fragment each into a 1x1 viewport */
  time_fn("1000_draws_1x1 (ms per 1000 draws)", draw_many_1x1, NULL, 50, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (pDispatch && pBindImage && pBarrier) {
    /* 4. compute copy, same textures: texelFetch + imageStore */
    g_prog = compile_prog(NULL, NULL,
      "#version 310 es\nlayout(local_size_x = 16, local_size_y = 16) in;\nprecision highp float; precision highp sampler2DArray; precision highp image2DArray;\n"
      "uniform sampler2DArray s;\nlayout(rgba32f, binding = 0) writeonly uniform image2DArray o;\n"
      "void main() { ivec3 p = ivec3(gl_GlobalInvocationID.xy, 0); imageStore(o, p, texelFetch(s, p, 0)); }\n");
    glUseProgram(g_prog);
    glUniform1i(glGetUniformLocation(g_prog, "s"), 0);
    time_fn("compute_copy_texture_128MiB (read+write)", dispatch_tex, NULL, 100, 2.0 * bytes);
    /* 5. compute copy of buffers */
    glGenBuffers(1, &g_buf_in);
    glBindBuffer(0x90D2, g_buf_in);
    glBufferData(0x90D2, bytes, host, GL_STATIC_DRAW);
    glGenBuffers(1, &g_buf_out);
    glBindBuffer(0x90D2, g_buf_out);
    glBufferData(0x90D2, bytes, NULL, GL_DYNAMIC_COPY);
    g_prog = compile_prog(NULL, NULL,
      "#version 310 es\nlayout(local_size_x = 256) in;\nlayout(std430, binding = 0) readonly buffer A { vec4 a[]; };\n"
      "layout(std430, binding = 1) writeonly buffer B { vec4 b[]; };\nvoid main() { uint i = gl_GlobalInvocationID.x; b[i] = a[i]; }\n");
    time_fn("compute_copy_ssbo_128MiB (read+write)", dispatch_buf, NULL, 100, 2.0 * bytes);
  } else {
    printf("# no GLES 3.1 compute entry points\n");
  }
  free(host);
}

int main(int argc, char **argv) {
  double min_ms = 300;
  int max_reps = 2000, device = -1;
  int first = 1, do_probe = 0;
  if (argc > 1 && !strcmp(argv[1], "--probe")) { do_probe = 1; first = 2; }
  for (; first < argc && !strncmp(argv[first], "--", 2); first += 2) {
    if (first + 1 >= argc) break;
    if (!strcmp(argv[first], "--min-ms")) min_ms = atof(argv[first + 1]);
    else if (!strcmp(argv[first], "--max-reps")) max_reps = atoi(argv[first + 1]);
    else if (!strcmp(argv[first], "--device")) device = atoi(argv[first + 1]);
  }
  if (egl_setup(device)) return 1;
  if (do_probe) { probe(); return 0; }
  objs = calloc(MAXID, sizeof *objs);
  locs = calloc(MAXID, sizeof *locs);
  GLuint queries[4096];
  if (have_timer) pGenQueries(4096, queries);
  printf("ROW\tmatrix\tkernel\tdtype\trows\tnnz\tdraws\teff_bytes\tgpu_tex_bytes\tsetup_ms\tgpu_ms\twall_ms\tGBps_gpu\tGBps_wall\terr_bound_ratio\tunwritten\treps\tstatus\n");
  fflush(stdout);
  for (int c = first; c < argc; c++) {
    Trace t;
    char skip[4096];
    snprintf(skip, sizeof skip, "%s/skipped.txt", argv[c]);
    if (access(skip, R_OK) == 0) continue;
    if (load_trace(argv[c], &t)) { printf("ROW\t%s\t-\t-\t0\t0\t0\t0\t0\t0\tnan\tnan\tnan\tnan\tnan\t0\t0\tLOAD_FAILED\n", argv[c]); continue; }
    memset(objs, 0, MAXID * sizeof *objs);
    memset(locs, 0xff, MAXID * sizeof *locs);
    case_failed = 0;
    GLint mts = 0, mal = 0, mfu = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &mts);
    glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &mal);
    glGetIntegerv(GL_MAX_FRAGMENT_UNIFORM_VECTORS, &mfu);
    const char *status = "ok";
    if (mts < t.lim_tex || mal < t.lim_layers || mfu < t.lim_fuv) status = "DEVICE_LIMITS_BELOW_DUMP";
    while (glGetError() != GL_NO_ERROR) {}
    double t0 = now_ms();
    run_ops(&t, 0, t.kernel_at);
    glFinish();
    double setup_ms = now_ms() - t0;
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) { fprintf(stderr, "%s: GL error 0x%x in setup\n", argv[c], err); status = "GL_ERROR_SETUP"; }
    if (case_failed) status = "COMPILE_FAILED";
    GLuint rfbo;
    glGenFramebuffers(1, &rfbo);
    /* correctness: poison y, one product, compare */
    poison_result(&t, rfbo);
    run_ops(&t, t.kernel_at, t.end_at);
    float *y = read_result(&t, rfbo);
    err = glGetError();
    if (err != GL_NO_ERROR && !strcmp(status, "ok")) { fprintf(stderr, "%s: GL error 0x%x in the product\n", argv[c], err); status = "GL_ERROR_KERNEL"; }
    double *ref = load_f64(argv[c], "ref.bin", t.rows), *bound = load_f64(argv[c], "bound.bin", t.rows);
    double worst = 0;
    long unwritten = 0;
    for (long i = 0; ref && bound && i < t.rows; i++) {
      double v = t.ds ? (double)y[2 * i] + (double)y[2 * i + 1] : (double)y[i];
      if (isnan(v)) { unwritten++; continue; }
      double e = fabs(v - ref[i]);
      double s = bound[i] > 0 ? bound[i] : 1e-300;
      if (e == 0) continue;
      if (e / s > worst) worst = e / s;
    }
    if (getenv("HARNESS_DEBUG")) for (long i = 0; i < t.rows && i < 4; i++) fprintf(stderr, "y[%ld] = %.17g + %.9g (ref %.17g)\n", i, (double)y[t.ds ? 2 * i : i], t.ds ? (double)y[2 * i + 1] : 0.0, ref ? ref[i] : NAN);
    double tol = t.ds ? 1e-12 : 1e-4;
    if (!strcmp(status, "ok") && (unwritten || !(worst <= tol))) status = "WRONG_RESULT";
    free(y);
    /* timing: warm-up, then GPU timer per product, then wall time of a batch */
    double gpu_ms = NAN, wall_ms = NAN;
    int reps = 0;
    if (!strcmp(status, "ok") || !strcmp(status, "WRONG_RESULT")) {
      for (int w = 0; w < 3; w++) run_ops(&t, t.kernel_at, t.end_at);
      glFinish();
      /* estimate */
      double e0 = now_ms();
      run_ops(&t, t.kernel_at, t.end_at);
      glFinish();
      double est = now_ms() - e0;
      reps = (int)(min_ms / (est > 1e-3 ? est : 1e-3));
      if (reps < 10) reps = 10;
      if (reps > max_reps) reps = max_reps;
      if (have_timer) {
        int nq = reps < 4096 ? reps : 4096;
        double *g = malloc(sizeof(double) * nq);
        for (int r = 0; r < nq; r++) {
          pBeginQuery(GL_TIME_ELAPSED_EXT, queries[r]);
          run_ops(&t, t.kernel_at, t.end_at);
          pEndQuery(GL_TIME_ELAPSED_EXT);
        }
        glFinish();
        GLint disjoint = 0;
        glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
        for (int r = 0; r < nq; r++) {
          GLuint64 ns = 0;
          pGetQueryui64(queries[r], GL_QUERY_RESULT_EXT, &ns);
          g[r] = ns / 1e6;
        }
        gpu_ms = median(g, nq);
        if (disjoint) fprintf(stderr, "%s: GPU_DISJOINT during timing\n", argv[c]);
        free(g);
      }
      double w0 = now_ms();
      for (int r = 0; r < reps; r++) run_ops(&t, t.kernel_at, t.end_at);
      glFinish();
      wall_ms = (now_ms() - w0) / reps;
      if (glGetError() != GL_NO_ERROR && !strcmp(status, "ok")) status = "GL_ERROR_TIMING";
    }
    printf("ROW\t%s\t%s\t%s\t%ld\t%ld\t%d\t%ld\t%ld\t%.1f\t%.5f\t%.5f\t%.1f\t%.1f\t%.2e\t%ld\t%d\t%s\n", t.matrix, t.kernel, t.dtype, t.rows, t.nnz, t.draws, t.bytes,
           t.gpubytes, setup_ms, gpu_ms, wall_ms, t.bytes / 1e9 / (gpu_ms / 1e3), t.bytes / 1e9 / (wall_ms / 1e3), worst, unwritten, reps, status);
    fflush(stdout);
    /* free the case's GL objects */
    glDeleteFramebuffers(1, &rfbo);
    for (int i = 0; i < t.nops; i++) {
      Op *o = &t.ops[i];
      if (o->op == O_T_CREATE && objs[o->a[0]]) glDeleteTextures(1, &objs[o->a[0]]);
      if (o->op == O_F_CREATE && objs[o->a[0]]) glDeleteFramebuffers(1, &objs[o->a[0]]);
      if (o->op == O_P_CREATE && objs[o->a[0]]) glDeleteProgram(objs[o->a[0]]);
      if (o->op == O_V_CREATE && objs[o->a[0]]) glDeleteVertexArrays(1, &objs[o->a[0]]);
      free(o->v);
      free(o->name);
    }
    glFinish();
    free(t.ops);
    if (t.blob) munmap(t.blob, t.blob_size);
    free(ref);
    free(bound);
  }
  return 0;
}
