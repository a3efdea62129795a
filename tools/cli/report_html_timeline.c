/* The timeline of the HTML report: ranks (locations) against time, MPI
 * against computation with one colour per MPI function, messages as lines,
 * wait states marked in red under each row; zoom with the wheel or the
 * buttons, pan by dragging. report_html.c calls msc_html_timeline with one
 * line.
 *
 * Design. The data are the engine's pre-aggregated levels (tools/analysis/
 * timeline.c: each location binned into 1024, 4096, 16384 and 65536 pixel
 * columns while the cells stay within 2^21, a state and a wait bit per
 * cell), embedded once as a JSON string in a <script type="application/json">.
 * The script draws on a canvas: for the visible range it takes the coarsest
 * level that still has a column per pixel (the deepest one otherwise) and
 * paints runs of equal cells; when the deepest level is coarser than a
 * pixel, it draws the exact calls where the view meets a window of exact
 * calls (W lines: at most 40,000 calls in all, where the run waited most;
 * marked by a grey bar over the rows) and the deepest level elsewhere; a
 * window asked for (`report --html --from --to`) opens the page and is drawn
 * exactly whenever the view lies in it. Message lines when at most 2,000 lie
 * in view. So the page's size and drawing time depend on the pixels and the
 * budget, not on the number of events. After each draw it writes what it did
 * on the canvas (data-level: columns, "exact" or "mixed"; data-view,
 * data-rects, data-exact, data-ms) and the exact calls drawn in the hidden
 * #tl-exact (rank thread function enter leave wait, ns) for the tests. The
 * location `#tl=A,B` (fractions of the run) opens the view [A, B]; with
 * `solo` in the location too, the other sections are hidden (the test's
 * screenshots).
 */
#include <stdio.h>
#include <string.h>

#include "report_cli.h"

static const char *TL_JS =
    "(function(){\n"
    "var d=document.getElementById('tl-data');if(!d)return;\n"
    "if(/solo/.test(location.hash))document.querySelectorAll('section,nav').forEach(function(s){if(s.id!=='timeline')s.style.display='none';});\n"
    "var txt=JSON.parse(d.textContent),span=1,exact=0,cols=[],fn={},locs=[],rows={},ex={},msgs=[],wins=[];\n"
    "txt.split('|').forEach(function(l){var f=l.split(' ');\n"
    " if(f[0]==='H'){span=+f[1];exact=+f[2];cols=f.slice(4).map(Number);}\n"
    " else if(f[0]==='F')fn[+f[1]]=f[2];\n"
    " else if(f[0]==='L')locs.push({loc:+f[1],rank:+f[2],thread:+f[3]});\n"
    " else if(f[0]==='R'){(rows[f[1]]=rows[f[1]]||[])[+f[2]]={c:f[3],w:f[4]};}\n"
    " else if(f[0]==='W')wins.push([+f[1],+f[2],f[3]]);\n"
    " else if(f[0]==='E'){var e=(ex[f[1]]=ex[f[1]]||[]),q=f[3].split(',').map(Number),t=+f[2];\n"
    "  for(var j=0;j<q.length;j+=4){t+=q[j];e.push(t,t+q[j+1],q[j+2],q[j+3]);}}\n"
    " else if(f[0]==='M')msgs.push([+f[1],+f[2],+f[3],+f[4]]);});\n"
    "locs=locs.filter(function(x){return rows[x.loc];});\n"
    "var rowOf={};locs.forEach(function(x,i){rowOf[x.loc]=i;});\n"
    "function dec(s){var b=atob(s),u=new Uint8Array(b.length);for(var i=0;i<b.length;i++)u[i]=b.charCodeAt(i);return u;}\n"
    "function cellsOf(loc,v){var r=rows[loc][v];if(!r.cu){r.cu=dec(r.c);r.wu=dec(r.w);}return r;}\n"
    "var PAL=['#4e79a7','#f28e2b','#b07aa1','#76b7b2','#edc948','#9c755f','#ff9da7','#bab0ac','#17becf','#8c564b','#1f77b4','#aec7e8'];\n"
    "function color(s){return s===1?'#a6d49f':s===255?'#777':PAL[(s-2)%PAL.length];}\n"
    "var cv=document.getElementById('tl-canvas'),ctx=cv.getContext('2d');\n"
    "var rowH=Math.max(6,Math.min(22,Math.floor(420/Math.max(1,locs.length)))),top=18,left=70;\n"
    "var W=cv.clientWidth||1000;cv.width=W;cv.height=top+rowH*locs.length+4;\n"
    "var a=0,b=span,m=/#tl=([0-9.]+),([0-9.]+)/.exec(location.hash);\n"
    "if(m){a=span*parseFloat(m[1]);b=span*parseFloat(m[2]);if(!(b>a)){a=0;b=span;}}\n"
    "else if(wins.length===1&&wins[0][2]==='asked'){a=wins[0][0];b=wins[0][1];}\n"
    "function fmt(ns){return ns>=1e9?(ns/1e9).toFixed(3)+' s':ns>=1e6?(ns/1e6).toFixed(3)+' ms':(ns/1e3).toFixed(1)+' us';}\n"
    "function draw(){var t0=performance.now(),pw=W-left,rects=0,shown=[];\n"
    " ctx.clearRect(0,0,cv.width,cv.height);ctx.font='11px sans-serif';ctx.fillStyle='#333';\n"
    " for(var k=0;k<=4;k++){var x=left+pw*k/4;ctx.fillText(fmt(a+(b-a)*k/4),Math.min(x,W-60),11);}\n"
    " var lv=cols.length-1;for(var v=0;v<cols.length;v++)if(cols[v]*(b-a)/span>=pw){lv=v;break;}\n"
    " var deep=cols[cols.length-1]*(b-a)/span<pw,vw=wins.filter(function(w){return w[1]>a&&w[0]<b;});\n"
    " var inside=vw.length===1&&vw[0][0]<=a&&vw[0][1]>=b;\n"
    " if(!deep&&!(inside&&vw[0][2]==='asked')){vw=[];inside=false;}\n"
    " function px(t){return left+(t-a)/(b-a)*pw;}\n"
    " locs.forEach(function(L,i){var y=top+i*rowH;ctx.fillStyle='#333';\n"
    "  ctx.fillText('rank '+L.rank+(L.thread?'.'+L.thread:''),2,y+rowH-3);\n"
    "  if(!inside){var r=cellsOf(L.loc,lv),n=cols[lv],run=-1,rs=0,wr=-1,st=[];\n"
    "  for(var x=0;x<=pw;x++){var c=-1,w=0;if(x<pw){var ci=Math.floor((a+(b-a)*(x+0.5)/pw)/span*n);\n"
    "    if(ci>=0&&ci<n){c=r.cu[ci];w=(r.wu[ci>>3]>>(ci&7))&1;}}\n"
    "   if(c!==run){if(run>0){ctx.fillStyle=color(run);ctx.fillRect(left+rs,y,x-rs,rowH-2);rects++;}run=c;rs=x;}\n"
    "   if(w&&wr<0)wr=x;if(!w&&wr>=0){st.push(wr,x);wr=-1;}}\n"
    "  ctx.fillStyle='#d62728';for(var j=0;j<st.length;j+=2){ctx.fillRect(left+st[j],y+rowH-5,st[j+1]-st[j],3);rects++;}}\n"
    "  var e=ex[L.loc]||[];vw.forEach(function(W0){var wa=Math.max(a,W0[0]),wb=Math.min(b,W0[1]),xa=px(wa),xb=px(wb);\n"
    "   ctx.clearRect(xa,y,xb-xa,rowH);ctx.save();ctx.beginPath();ctx.rect(xa,y,xb-xa,rowH);ctx.clip();\n"
    "   if(e.length&&e[0]<=wb&&e[e.length-3]>=wa){ctx.fillStyle=color(1);ctx.fillRect(Math.max(xa,px(e[0])),y,Math.min(xb,px(e[e.length-3]))-Math.max(xa,px(e[0])),rowH-2);rects++;}\n"
    "   for(var j=0;j<e.length;j+=4){if(e[j+1]<wa||e[j]>wb)continue;\n"
    "    var x0=px(e[j]),x1=px(e[j+1]);\n"
    "    ctx.fillStyle=color(e[j+2]);ctx.fillRect(x0,y,Math.max(1,x1-x0),rowH-2);rects++;\n"
    "    shown.push([L.rank,L.thread,fn[e[j+2]]||(e[j+2]===255?'other':'?'),e[j],e[j+1],e[j+3]]);\n"
    "    if(e[j+3]>0){var xw=px(e[j]+e[j+3]);ctx.fillStyle='#d62728';ctx.fillRect(x0,y+rowH-5,Math.max(1,xw-x0),3);rects++;}}\n"
    "   ctx.restore();});});\n"
    " ctx.fillStyle='#555';wins.forEach(function(W0){if(W0[1]<a||W0[0]>b)return;var xa=Math.max(left,px(W0[0])),xb=Math.min(W,px(W0[1]));ctx.fillRect(xa,top-4,Math.max(1,xb-xa),2);});\n"
 " var seen={};shown=shown.filter(function(q){var k=q[0]+'.'+q[1]+'@'+q[3];if(seen[k])return false;seen[k]=1;return true;});\n"
    " var xp=document.getElementById('tl-exact');if(xp)xp.textContent=shown.length<=20000?shown.map(function(q){return q.join(' ');}).join('\\n'):'';\n"
    " cv.setAttribute('data-exact',shown.length);\n"
 " var vis=msgs.filter(function(q){return q[3]>=a&&q[1]<=b;});\n"
    " if(vis.length<=2000){ctx.strokeStyle='rgba(0,0,0,.55)';ctx.lineWidth=1;ctx.beginPath();\n"
    "  vis.forEach(function(q){if(rowOf[q[0]]===undefined||rowOf[q[2]]===undefined)return;\n"
    "   ctx.moveTo(left+(q[1]-a)/(b-a)*pw,top+rowOf[q[0]]*rowH+rowH/2);\n"
    "   ctx.lineTo(left+(q[3]-a)/(b-a)*pw,top+rowOf[q[2]]*rowH+rowH/2);});ctx.stroke();}\n"
    " cv.setAttribute('data-level',inside?'exact':vw.length?'mixed':String(cols[lv]));\n"
    " cv.setAttribute('data-view',a+','+b);cv.setAttribute('data-rects',rects);\n"
    " cv.setAttribute('data-lines',vis.length<=2000?vis.length:0);\n"
    " cv.setAttribute('data-ms',(performance.now()-t0).toFixed(1));\n"
    " document.getElementById('tl-view').textContent=fmt(a)+' to '+fmt(b)+(inside?' (exact calls)':vw.length?' (exact calls in the marked windows, '+cols[lv]+' columns elsewhere)':' ('+cols[lv]+' columns over the run)');}\n"
    "function setView(na,nb){var w=nb-na;if(w<1)w=1;if(w>span)w=span;if(na<0)na=0;if(na+w>span)na=span-w;a=na;b=na+w;draw();}\n"
    "function zoom(f,cx){var m=a+(b-a)*(cx===undefined?0.5:cx);setView(m-(m-a)*f,m+(b-m)*f);}\n"
    "cv.addEventListener('wheel',function(e){e.preventDefault();var r=cv.getBoundingClientRect();\n"
    " zoom(e.deltaY>0?1.25:0.8,Math.max(0,(e.clientX-r.left-left)/(r.width-left)));},{passive:false});\n"
    "var drag=null;cv.addEventListener('mousedown',function(e){drag={x:e.clientX,a:a,b:b};});\n"
    "window.addEventListener('mouseup',function(){drag=null;});\n"
    "window.addEventListener('mousemove',function(e){if(!drag)return;var dx=(e.clientX-drag.x)/(W-left)*(drag.b-drag.a);setView(drag.a-dx,drag.b-dx);});\n"
    "document.getElementById('tl-in').onclick=function(){zoom(0.5);};\n"
    "document.getElementById('tl-out').onclick=function(){zoom(2);};\n"
    "document.getElementById('tl-all').onclick=function(){setView(0,span);};\n"
    "var lg=document.getElementById('tl-legend'),h='<span><i style=\"background:'+color(1)+'\"></i>computation</span>';\n"
    "Object.keys(fn).forEach(function(k){h+='<span><i style=\"background:'+color(+k)+'\"></i>'+fn[k].replace(/[<&]/g,'')+'</span>';});\n"
    "lg.innerHTML=h+'<span><i style=\"background:#d62728\"></i>wait state</span><span>&mdash; message</span>';\n"
    "window.mscTimeline={setView:setView,zoom:zoom,view:function(){return [a,b];},windows:function(){return wins;}};\n"
    "draw();document.body.setAttribute('data-timeline','drawn');\n"

    "})();\n";

/* s as a JSON string that cannot end the <script> element it sits in. */
static void json_in_script(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(o, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", o);
        else if (ch == '\t') fputs("\\t", o);
        else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') fprintf(o, "\\u%04x", ch);
        else fputc(ch, o);
    }
    fputc('"', o);
}

void msc_html_timeline(FILE *o, const msc_json_t *ws)
{
    const char *tl = ws ? msc_json_str(ws, "timeline", NULL) : NULL;
    if (!tl) return;
    fprintf(o, "<section id=\"timeline\"><h2>Timeline</h2><p>Each row a rank (and thread): "
               "computation green, each MPI function its colour, wait states red underneath, "
               "messages as lines (when few enough are in view). Wheel or buttons to zoom, drag "
               "to pan. <span id=\"tl-view\"></span></p>\n"
               "<style>#tl-canvas{width:100%%;display:block;cursor:grab;border:1px solid #eee}"
               "#tl-legend span{margin-right:12px;font-size:12px;white-space:nowrap}"
               "#tl-legend i{display:inline-block;width:10px;height:10px;margin-right:4px}"
               "#timeline button{margin-right:6px}</style>\n"
               "<p><button id=\"tl-in\">zoom in</button><button id=\"tl-out\">zoom out</button>"
               "<button id=\"tl-all\">whole run</button></p>\n"
               "<canvas id=\"tl-canvas\" height=\"200\"></canvas><p id=\"tl-legend\"></p>\n"
               "<pre id=\"tl-exact\" hidden></pre>\n"
               "<script type=\"application/json\" id=\"tl-data\">");
    json_in_script(o, tl);
    fprintf(o, "</script>\n<script>%s</script></section>\n", TL_JS);
}
