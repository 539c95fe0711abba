// Unit square, unstructured triangles (Gmsh 4, format 2.2): gmsh -2 -format msh22 square.geo -o square.msh (162 triangles);
// square_944 and square_2128 are the same with lc 0.0505 and 0.034: with -dm_refine 3 and 4 they give 60k and 545k triangles
lc = 0.125;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("boundary", 1) = {1, 2, 3, 4};
Physical Surface("domain", 2) = {1};
